"""Admin for notifications and their deliveries."""

from django.contrib import admin

from arena.notifications.models import Delivery, Notification, Webhook


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "user", "kind", "subject", "created", "read")
    list_filter = ("kind",)
    raw_id_fields = ("user",)


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "notification", "channel", "status", "attempts", "sent")
    list_filter = ("channel", "status")
    raw_id_fields = ("notification",)


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("user", "url", "active", "created")
    exclude = ("secret",)
    raw_id_fields = ("user",)
