"""Presence from per-socket rows (games/presence.py) instead of a counter on the seat that leaked
when a disconnect was lost. The 客服 group gets view permission on the new model (accounts/roles.py)."""

import django.db.models.deletion
from django.db import migrations, models


def sync_customer_service_group(apps, schema_editor):
    from accounts.roles import sync_customer_service_group

    sync_customer_service_group(apps, using=schema_editor.connection.alias)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0006_admin_names'),
        ('accounts', '0005_customer_service_group'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='seat',
            name='connections',
        ),
        migrations.CreateModel(
            name='SocketPresence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('channel_name', models.CharField(max_length=100, unique=True)),
                ('opened_at', models.DateTimeField(auto_now_add=True)),
                ('seen_at', models.DateTimeField(db_index=True)),
                ('room', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sockets', to='games.room')),
                ('seat', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sockets', to='games.seat')),
            ],
            options={
                'verbose_name': '在线连接',
                'verbose_name_plural': '在线连接',
                'indexes': [models.Index(fields=['seat', 'seen_at'], name='presence_seat_seen')],
            },
        ),
        migrations.RunPython(sync_customer_service_group, migrations.RunPython.noop),
    ]
