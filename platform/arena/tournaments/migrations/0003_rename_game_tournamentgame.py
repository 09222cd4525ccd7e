# The model ``Game`` is renamed ``TournamentGame`` (it was mistaken for games.core.Game); its
# table keeps its name: pinning the table first makes the rename a no-op in the database.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_tournament_time_control"),
    ]

    operations = [
        migrations.AlterModelTable(name="game", table="tournaments_game"),
        migrations.RenameModel(old_name="Game", new_name="TournamentGame"),
    ]
