"""Submission and agent pages."""

from django.urls import path

from arena.submissions import views

app_name = "submissions"
urlpatterns = [
    path("upload/", views.upload, name="upload"),
    path("mine/", views.mine, name="mine"),
    path("<int:submission_id>/", views.detail, name="detail"),
    path("<int:submission_id>/ladder/", views.ladder, name="ladder"),
    path("<int:submission_id>/train/", views.train, name="train"),
    path("agents/<int:agent_id>/", views.agent, name="agent"),
    path("agents/<int:agent_id>/archive/", views.archive, name="archive"),
]
