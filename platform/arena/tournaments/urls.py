"""Tournament pages."""

from django.urls import path

from arena.tournaments import views

app_name = "tournaments"
urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.new, name="new"),
    path("<int:tournament_id>/", views.tournament_detail, name="detail"),
    path("<int:tournament_id>/enter/", views.enter, name="enter"),
    path("<int:tournament_id>/withdraw/", views.withdraw, name="withdraw"),
    path("<int:tournament_id>/control/", views.control, name="control"),
]
