"""Staff roles. The customer-service group (客服) may view everything in the admin, adjust beans
within the per-action ceiling, freeze and unfreeze accounts, force-dissolve rooms, work on
anti-collusion alerts (status and note), work on players' tickets (assign, reply, internal notes,
close, reopen: change_ticket and add_ticketmessage) and publish announcements (add and change, never
delete). It never adds, changes or deletes ledger rows, audit entries, users or site settings (a
group that could change the settings could raise its own ceiling). Superusers have every permission.

No model imports at module level: the data migration calls `sync_customer_service_group`
with the historical app registry (where an app appears only once its first migration has run:
what an app not there yet would get is left for its own migration to sync).
"""

from django.apps import apps as global_apps
from django.db import DEFAULT_DB_ALIAS

CUSTOMER_SERVICE = "客服"

VIEW_APPS = ("accounts", "games", "support")  # view_<model> on every model of these apps, and on auth.User
CHANGE = (
    ("games", "alert"),  # the alert admin lets only status and note change
    ("support", "ticket"),  # assign, close, reopen (support/services.py, audited)
    ("support", "announcement"),
)
ADD = (
    ("support", "ticketmessage"),  # replies and internal notes
    ("support", "announcement"),
)
CUSTOM = (
    ("accounts", "adjust_beans"),  # Wallet.Meta.permissions
    ("accounts", "freeze_user"),  # Profile.Meta.permissions
    ("games", "dissolve_room"),  # Room.Meta.permissions
)


def _present(apps, label) -> bool:
    try:
        apps.get_app_config(label)
    except LookupError:  # a historical registry from before the app's first migration
        return False
    return True


def customer_service_permissions(apps=global_apps) -> set:
    """(app_label, codename) pairs the group holds."""
    wanted = {("auth", "view_user")}
    for label in VIEW_APPS:
        if _present(apps, label):
            for model in apps.get_app_config(label).get_models():
                wanted.add((label, f"view_{model._meta.model_name}"))
    wanted |= {(label, f"change_{model}") for label, model in CHANGE if _present(apps, label)}
    wanted |= {(label, f"add_{model}") for label, model in ADD if _present(apps, label)}
    wanted |= {(label, codename) for label, codename in CUSTOM if _present(apps, label)}
    return wanted


def sync_customer_service_group(apps=global_apps, using=DEFAULT_DB_ALIAS):
    """Create the 客服 group (or reset it) with exactly its permissions. Idempotent."""
    from django.contrib.auth.management import create_permissions

    # in a migration the permissions do not exist yet (post_migrate makes them at the end)
    for label in ("auth",) + VIEW_APPS:
        create_permissions(global_apps.get_app_config(label), verbosity=0, interactive=False, using=using, apps=apps)
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    wanted = customer_service_permissions(apps)
    candidates = Permission.objects.using(using).select_related("content_type").filter(
        content_type__app_label__in=("auth",) + VIEW_APPS)
    perms = [p for p in candidates if (p.content_type.app_label, p.codename) in wanted]
    missing = wanted - {(p.content_type.app_label, p.codename) for p in perms}
    if missing:
        raise LookupError(f"permissions not found: {sorted(missing)}")
    group, _created = Group.objects.using(using).get_or_create(name=CUSTOMER_SERVICE)
    group.permissions.set(perms)
    return group
