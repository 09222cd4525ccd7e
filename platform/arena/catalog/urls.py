"""Home and game pages."""

from django.urls import path

from arena.catalog import views

app_name = "catalog"
urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:game>/", views.game, name="game"),
    path("games/<str:game>/starter.py", views.starter, name="starter"),
]
