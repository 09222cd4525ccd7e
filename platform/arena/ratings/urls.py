"""Pages of the ratings across games."""

from django.urls import path

from arena.ratings import views

app_name = "ratings"
urlpatterns = [
    path("unified/", views.unified, name="unified"),
    path("models/<slug:name>/", views.model, name="model"),
]
