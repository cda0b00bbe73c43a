"""逃跑 (Zhuji): Seat.escaped and the Escape record of each penalty. The 客服 group gets view
permission on the new model (accounts/roles.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def sync_customer_service_group(apps, schema_editor):
    from accounts.roles import sync_customer_service_group

    sync_customer_service_group(apps, using=schema_editor.connection.alias)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_variant_settings_and_carry'),
        ('accounts', '0005_customer_service_group'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='escaped',
            field=models.BooleanField(default=False),
        ),
        migrations.CreateModel(
            name='Escape',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField()),
                ('transfers', models.JSONField(default=list)),
                ('owed', models.JSONField(default=dict)),
                ('paid', models.JSONField(default=dict)),
                ('reasons', models.JSONField(default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='escapes', to='games.game')),
                ('hand', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='games.hand')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='escapes', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': '逃跑记录',
                'verbose_name_plural': '逃跑记录',
                'constraints': [models.UniqueConstraint(fields=('game', 'position'), name='one_escape_per_seat')],
            },
        ),
        migrations.RunPython(sync_customer_service_group, migrations.RunPython.noop),
    ]
