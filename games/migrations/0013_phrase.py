"""快捷语 rows (games/phrases.py); the 客服 group may view them (accounts/roles.py)."""

import django.db.models.deletion
from django.db import migrations, models


def sync_customer_service_group(apps, schema_editor):
    from accounts.roles import sync_customer_service_group

    sync_customer_service_group(apps, using=schema_editor.connection.alias)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0012_room_number'),
    ]

    operations = [
        migrations.CreateModel(
            name='Phrase',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('after_seq', models.PositiveIntegerField(default=0)),
                ('position', models.PositiveSmallIntegerField()),
                ('phrase', models.CharField(max_length=8)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('hand', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='phrases', to='games.hand')),
                ('room', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='phrases', to='games.room')),
            ],
            options={
                'verbose_name': '快捷语',
                'verbose_name_plural': '快捷语',
                'ordering': ['pk'],
            },
        ),
        migrations.RunPython(sync_customer_service_group, migrations.RunPython.noop),
    ]
