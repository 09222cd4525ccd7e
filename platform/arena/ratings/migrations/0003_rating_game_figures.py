"""Ladder figures declared by each game (``GamePackage.ladder_figures``) replace the BB/100
columns every rating row had: poker's sums move into ``figure_sums["bb_per_100"]``."""

from django.db import migrations, models


def bb_per_100_to_figures(apps, schema_editor):
    Rating = apps.get_model("ratings", "Rating")
    for rating in Rating.objects.filter(bb_per_100_matches__gt=0).iterator():
        rating.figure_sums = {"bb_per_100": [rating.bb_per_100_sum, rating.bb_per_100_matches]}
        rating.save(update_fields=["figure_sums"])


def figures_to_bb_per_100(apps, schema_editor):
    Rating = apps.get_model("ratings", "Rating")
    for rating in Rating.objects.exclude(figure_sums={}).iterator():
        total, matches = (rating.figure_sums or {}).get("bb_per_100", [0.0, 0])
        rating.bb_per_100_sum, rating.bb_per_100_matches = total, matches
        rating.save(update_fields=["bb_per_100_sum", "bb_per_100_matches"])


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0002_ladder_aggregates_and_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="figure_sums",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(bb_per_100_to_figures, figures_to_bb_per_100),
        migrations.RemoveField(model_name="rating", name="bb_per_100_matches"),
        migrations.RemoveField(model_name="rating", name="bb_per_100_sum"),
    ]
