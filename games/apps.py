from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "麻将"

    def ready(self):
        from games import tasks

        tasks.register()  # the services' deferred work: timeouts, replays, dissolve windows
