"""联系客服 (tickets and their messages) and 公告 (announcements, dismissals per player). The 客服 group
gets view on these models, change on tickets and announcements, add on ticket messages (replies and
notes) and announcements (accounts/roles.py)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def sync_customer_service_group(apps, schema_editor):
    from accounts.roles import sync_customer_service_group

    sync_customer_service_group(apps, using=schema_editor.connection.alias)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0013_phrase'),
        ('accounts', '0006_escape'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Announcement',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('title', models.CharField(max_length=60, verbose_name='标题')),
                ('body', models.TextField(max_length=500, verbose_name='内容')),
                ('starts_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='开始显示')),
                ('ends_at', models.DateTimeField(blank=True, help_text='留空：一直显示，直到改成一个结束时间', null=True, verbose_name='结束显示')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='创建时间')),
                ('created_by', models.ForeignKey(editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='发布人')),
            ],
            options={
                'verbose_name': '公告',
                'verbose_name_plural': '公告',
                'ordering': ['-starts_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='Ticket',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('category', models.CharField(choices=[('beans', '金豆争议'), ('cheat', '举报作弊'), ('account', '账号问题'), ('other', '其他')], max_length=10, verbose_name='类别')),
                ('subject', models.CharField(max_length=80, verbose_name='标题')),
                ('status', models.CharField(choices=[('open', '待处理'), ('assigned', '处理中'), ('answered', '已回复'), ('closed', '已关闭')], default='open', max_length=10, verbose_name='状态')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='提交时间')),
                ('updated_at', models.DateTimeField(auto_now=True, verbose_name='最后更新')),
                ('waiting_since', models.DateTimeField(blank=True, null=True, verbose_name='等待回复自')),
                ('last_reply_at', models.DateTimeField(blank=True, null=True, verbose_name='最近回复')),
                ('player_read_at', models.DateTimeField(blank=True, null=True)),
                ('closed_at', models.DateTimeField(blank=True, null=True, verbose_name='关闭时间')),
                ('assignee', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='assigned_tickets', to=settings.AUTH_USER_MODEL, verbose_name='负责客服')),
                ('hand', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='tickets', to='games.hand', verbose_name='对局')),
                ('room', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='tickets', to='games.room', verbose_name='房间')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tickets', to=settings.AUTH_USER_MODEL, verbose_name='玩家')),
            ],
            options={
                'verbose_name': '客服工单',
                'verbose_name_plural': '客服工单',
                'ordering': ['-id'],
            },
        ),
        migrations.CreateModel(
            name='TicketMessage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('player', '玩家留言'), ('reply', '客服回复'), ('note', '内部备注')], max_length=10)),
                ('body', models.TextField(max_length=2000)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('author', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('ticket', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='messages', to='support.ticket')),
            ],
            options={
                'verbose_name': '工单消息',
                'verbose_name_plural': '工单消息',
                'ordering': ['id'],
            },
        ),
        migrations.CreateModel(
            name='AnnouncementDismissal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('dismissed_at', models.DateTimeField(auto_now_add=True)),
                ('announcement', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='dismissals', to='support.announcement')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': '已关闭的公告',
                'verbose_name_plural': '已关闭的公告',
                'constraints': [models.UniqueConstraint(fields=('announcement', 'user'), name='one_dismissal_per_user')],
            },
        ),
        migrations.AddIndex(
            model_name='ticket',
            index=models.Index(fields=['status', 'waiting_since'], name='ticket_queue'),
        ),
        migrations.RunPython(sync_customer_service_group, migrations.RunPython.noop),
    ]
