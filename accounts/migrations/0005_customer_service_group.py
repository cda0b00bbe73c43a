"""The customer-service group (客服): see accounts/roles.py."""

from django.db import migrations


def create_group(apps, schema_editor):
    from accounts.roles import sync_customer_service_group

    sync_customer_service_group(apps, using=schema_editor.connection.alias)


def remove_group(apps, schema_editor):
    from accounts.roles import CUSTOMER_SERVICE

    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(name=CUSTOMER_SERVICE).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0004_staff_permissions"),
        ("games", "0005_room_dissolve_permission"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
