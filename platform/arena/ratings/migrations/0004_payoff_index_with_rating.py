"""A mean-payoff ladder's head is read in the order of ``rating_by_payoff``: mean payoff, then
Elo, then id (``ratings.selectors._ordered_ids``), so a page is an index range, not a sort."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0003_rating_game_figures"),
        ("submissions", "0002_agent_archived"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="rating",
            name="rating_by_payoff",
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                fields=["game", "game_version", "-mean_payoff", "-rating", "id"],
                name="rating_by_payoff",
            ),
        ),
    ]
