"""Rooms, seats, games and hands. Only games/services.py writes these during play."""

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.variant_names import all_variant_choices


def new_token():
    return secrets.token_urlsafe(18)


class Room(models.Model):
    WAITING, PLAYING, FINISHED, DISSOLVED = "waiting", "playing", "finished", "dissolved"
    STATUS_CHOICES = [(WAITING, _("等待开始")), (PLAYING, _("对局中")), (FINISHED, _("已结束")),
                      (DISSOLVED, _("已解散"))]
    HANDS, ROUNDS = "hands", "rounds"

    token = models.CharField(max_length=40, unique=True, default=new_token)  # the invite link's secret
    # 房间号: six digits that lead to the same join page as the invite link, unique among open rooms
    # (waiting or playing); a revoked invite retires it (games/services/rooms.py, room_numbers.py)
    number = models.CharField(_("房间号"), max_length=6, null=True, blank=True)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_rooms")
    variant = models.CharField(_("玩法"), max_length=20, choices=all_variant_choices, default="taizhou")
    players = models.PositiveSmallIntegerField(_("人数"), default=4)
    length_kind = models.CharField(_("局数方式"), max_length=10, default=HANDS,
                                   choices=[(HANDS, _("局")), (ROUNDS, _("圈"))])
    length = models.PositiveSmallIntegerField(_("长度"), default=8)  # hands 4/8/16 or rounds 1/2
    stake = models.PositiveIntegerField(_("底注（金豆/胡）"), default=100)
    turn_seconds = models.PositiveSmallIntegerField(_("出牌时间（秒）"), default=15)
    claim_seconds = models.PositiveSmallIntegerField(_("吃碰时间（秒）"), default=8)
    min_balance = models.PositiveBigIntegerField(_("入座最低金豆"), default=0)
    # the variant's own settings (RoomOptions.settings: e.g. Wenzhou's odd bases), name -> value
    settings = models.JSONField(_("玩法设置"), default=dict, blank=True)
    REPLAY_LINK, REPLAY_PLAYERS = "link", "players"
    replay_visibility = models.CharField(_("回放可见"), max_length=10, default=REPLAY_LINK,
                                         choices=[(REPLAY_LINK, _("有链接的人都能看")), (REPLAY_PLAYERS, _("只有本房玩家"))])
    replay_hide_names = models.BooleanField(_("分享的回放隐藏昵称"), default=False)
    # 练习: a room with computer players; no beans move (the stake is shown as 练习, not settled)
    practice = models.BooleanField(_("练习（不计金豆）"), default=False)
    hints_allowed = models.BooleanField(_("允许提示"), default=True)  # the host may forbid hints (听牌 / 打哪张)
    # 观战 (games/spectators.py): who may watch by the watch link, and how many moves behind live play
    WATCH_NOBODY, WATCH_FRIENDS, WATCH_ANYONE = "nobody", "friends", "anyone"
    WATCH_CHOICES = [(WATCH_NOBODY, _("不允许")), (WATCH_FRIENDS, _("玩家的朋友（有链接）")),
                     (WATCH_ANYONE, _("任何有链接的人"))]
    WATCH_DELAYS = (0, 1, 3)
    spectators = models.CharField(_("观战"), max_length=10, choices=WATCH_CHOICES, default=WATCH_NOBODY)
    spectator_delay = models.PositiveSmallIntegerField(_("观战延迟（步）"), default=3,
                                                       choices=[(n, str(n)) for n in WATCH_DELAYS])
    status = models.CharField(max_length=12, choices=STATUS_CHOICES, default=WAITING)
    invite_revoked = models.BooleanField(default=False)
    dissolve_started_at = models.DateTimeField(null=True, blank=True)
    dissolve_votes = models.JSONField(default=list, blank=True)  # positions that agreed
    version = models.PositiveIntegerField(default=0)  # bumped on every change of the room
    # 再来一局: the room the players who accepted a rematch sit in (same rules, same seats)
    rematch = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("房间")
        verbose_name_plural = _("房间")
        permissions = [("dissolve_room", _("可以强制解散房间"))]
        constraints = [models.UniqueConstraint(fields=["number"], condition=models.Q(status__in=["waiting", "playing"]),
                                               name="one_open_room_per_number")]

    def __str__(self):
        return f"#{self.pk} {self.get_variant_display()}"

    @property
    def group_name(self):
        return f"room-{self.pk}"

    def length_label(self):
        return f"{self.length}{'圈' if self.length_kind == self.ROUNDS else '局'}"


def bot_name(position: int) -> str:
    """A computer player's name at the table (translated where shown)."""
    from django.utils.translation import gettext

    return gettext("电脑%(n)s") % {"n": position + 1}


class Seat(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seats")
    # a person's seat, or a computer player's (bot: no user; games/services/bots.py)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="seats")
    bot = models.BooleanField(default=False)  # 电脑: plays through the same service path (games/engine/bot.py)
    position = models.PositiveSmallIntegerField()  # table position; engine player index
    ready = models.BooleanField(default=False)
    auto_play = models.BooleanField(default=False)  # 托管
    escaped = models.BooleanField(default=False)  # left the game (逃跑): 托管 to the end, not taken back
    hints = models.BooleanField(default=False)  # this player turned hints on (games/engine/hints.py)
    timeouts = models.PositiveSmallIntegerField(default=0)  # in a row
    ip = models.GenericIPAddressField(null=True, blank=True)  # from the socket (or a trusted proxy)
    latitude = models.FloatField(null=True, blank=True)  # shared by the player, with consent
    longitude = models.FloatField(null=True, blank=True)
    located_at = models.DateTimeField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("座位")
        verbose_name_plural = _("座位")
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["room", "position"], name="one_player_per_position"),
            models.UniqueConstraint(fields=["room", "user"], name="one_seat_per_user"),
            models.CheckConstraint(condition=models.Q(bot=True, user__isnull=True) | models.Q(bot=False, user__isnull=False),
                                   name="a_bot_or_a_person"),
        ]

    def __str__(self):
        return _("房间 #%(room)s 座位 %(p)s") % {"room": self.room_id, "p": self.position}

    @property
    def name(self) -> str:
        """What the table calls this seat: the player's nickname, or 电脑 N for a bot."""
        if self.bot or self.user_id is None:
            return bot_name(self.position)
        from accounts.models import display_name

        return display_name(self.user)

    @property
    def online(self):
        """A socket of this seat was heard from within the presence TTL (games/presence.py). Lists
        annotate `is_online` (presence.with_online) to ask once for all seats."""
        value = self.__dict__.get("is_online")
        if value is None:
            from games.presence import seat_online

            value = seat_online(self.pk)
        return value


class SocketPresence(models.Model):
    """One open room socket (games/presence.py). Written on connect, refreshed by the page's
    heartbeat, deleted on disconnect; a row of a process that died without a disconnect simply
    stops counting after settings.PRESENCE_TTL_SECONDS (and the periodic cleanup deletes it)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="sockets")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="sockets")
    channel_name = models.CharField(max_length=100, unique=True)  # the consumer's channel-layer name
    opened_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("在线连接")
        verbose_name_plural = _("在线连接")
        indexes = [models.Index(fields=["seat", "seen_at"], name="presence_seat_seen")]

    def __str__(self):
        return f"{self.channel_name} @ {self.seen_at:%H:%M:%S}"


class SpectatorSocket(models.Model):
    """One open spectator socket (观战, games/spectators.py), like SocketPresence for seats: written
    on connect with the address it came from, refreshed by the heartbeat, deleted on close; a row
    not heard from within settings.PRESENCE_TTL_SECONDS stops counting (and is deleted by the
    periodic cleanup). The table shows how many distinct users have a live row."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="spectator_sockets")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="spectator_sockets")
    channel_name = models.CharField(max_length=100, unique=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("观战连接")
        verbose_name_plural = _("观战连接")
        indexes = [models.Index(fields=["room", "seen_at"], name="spectator_room_seen")]

    def __str__(self):
        return f"{self.channel_name} @ {self.seen_at:%H:%M:%S}"


class Game(models.Model):
    """A room's session: the hands played from start to the end of its length."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="game")
    first_dealer = models.PositiveSmallIntegerField()
    dealer = models.PositiveSmallIntegerField()
    hands_played = models.PositiveIntegerField(default=0)
    dealer_passes = models.PositiveIntegerField(default=0)  # for lengths counted in rounds (圈)
    totals = models.JSONField(default=list)  # net 胡 per position over the game
    carry = models.JSONField(default=dict, blank=True)  # what the next hand starts from (engine.next_hand)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("牌局")
        verbose_name_plural = _("牌局")

    def __str__(self):
        return _("房间 #%(room)s 的牌局") % {"room": self.room_id}

    def is_over(self):
        room = self.room
        if room.length_kind == Room.ROUNDS:
            return self.dealer_passes >= room.length * room.players
        return self.hands_played >= room.length


class Hand(models.Model):
    PLAYING, ENDED, VOID = "playing", "ended", "void"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()  # 1, 2, ...
    seed = models.BigIntegerField()
    salt = models.CharField(max_length=64, default="")  # with the seed, opens the commitment
    dealer = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict)
    # the variant's state carried from the hand before (dealer streak, base, 买底/顶底 kept): an
    # input of the hand like its seed; new_hand(options, seed, dealer, carry) replays it
    carry = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=0)  # number of actions applied
    status = models.CharField(max_length=10, default=PLAYING)
    deadline = models.DateTimeField(null=True, blank=True)  # when the waiting players time out
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    @property
    def commitment(self):
        """SHA-256 shown at the start of the hand; the replay reveals seed and salt (provably fair)."""
        from games.fairness import commitment

        return commitment(self.seed, self.salt)

    class Meta:
        verbose_name = _("对局")
        verbose_name_plural = _("对局")
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="one_hand_number_per_game")]
        indexes = [models.Index(fields=["status", "deadline"])]

    def __str__(self):
        return _("第 %(n)s 局（#%(id)s）") % {"n": self.number, "id": self.pk}


class Escape(models.Model):
    """A player left a game in progress (逃跑, Zhuji §3): the penalty in the variant's unit and
    the beans that moved for it (ledger rows "escape:<game>:<position>:<payer or payee>")."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="escapes")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="escapes")
    hand = models.ForeignKey(Hand, null=True, blank=True, on_delete=models.SET_NULL)  # in play when they left
    transfers = models.JSONField(default=list)  # [{"from", "to", "amount", "why": "escape"}] in units
    owed = models.JSONField(default=dict)  # position -> beans by the rules
    paid = models.JSONField(default=dict)  # position -> beans that moved (limits, balances)
    reasons = models.JSONField(default=dict)  # position -> why it was cut
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("逃跑记录")
        verbose_name_plural = _("逃跑记录")
        constraints = [models.UniqueConstraint(fields=["game", "position"], name="one_escape_per_seat")]

    def __str__(self):
        return _("牌局 #%(game)s 座位 %(p)s 逃跑") % {"game": self.game_id, "p": self.position}


class Phrase(models.Model):
    """A quick phrase or emoji (games/phrases.py) a seated player sent to the table. Not a game
    action (no version, never in the hand's log): the replay shows them beside the step they
    followed (`after_seq`)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="phrases")
    hand = models.ForeignKey("Hand", null=True, blank=True, on_delete=models.CASCADE, related_name="phrases")
    after_seq = models.PositiveIntegerField(default=0)  # the hand's version when it was said
    position = models.PositiveSmallIntegerField()
    phrase = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("快捷语")
        verbose_name_plural = _("快捷语")
        ordering = ["pk"]


class HandEvent(models.Model):
    """Append-only log: one row per accepted action, with the engine events it produced."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()  # 1 = first action; equals hand.version after it
    action = models.JSONField()
    events = models.JSONField(default=list)
    auto = models.BooleanField(default=False)  # made by the timeout / 托管
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("操作记录")
        verbose_name_plural = _("操作记录")
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["hand", "seq"], name="one_event_per_seq")]

    def __str__(self):
        return f"#{self.hand_id}/{self.seq}"


class Replay(models.Model):
    """A finished hand re-run through the engine from (seed, options, dealer, actions) and checked
    against what was recorded. Built by a Celery task; a mismatch is stored, never hidden."""

    PENDING, OK, MISMATCH = "pending", "ok", "mismatch"

    hand = models.OneToOneField(Hand, on_delete=models.CASCADE, related_name="replay")
    token = models.CharField(max_length=40, unique=True, default=new_token)  # the share link's secret
    status = models.CharField(max_length=10, default=PENDING)
    problem = models.TextField(blank=True)  # what did not match
    data = models.JSONField(default=dict)  # the downloadable replay
    built_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("回放")
        verbose_name_plural = _("回放")

    def __str__(self):
        return _("第 %(id)s 号局的回放") % {"id": self.hand_id}


class Alert(models.Model):
    """A possible collusion (同IP / GPS too close) for customer service to look at."""

    SAME_IP, NEAR, WATCH_IP = "same_ip", "near", "watch_ip"
    NEW, LOOKED, ACTED = "new", "looked", "acted"
    KINDS = [(SAME_IP, _("同一 IP")), (NEAR, _("距离过近")), (WATCH_IP, _("观战者与玩家同一 IP"))]
    STATUSES = [(NEW, _("新")), (LOOKED, _("已查看")), (ACTED, _("已处理"))]

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="alerts")
    kind = models.CharField(_("类型"), max_length=10, choices=KINDS)
    positions = models.JSONField(_("座位"), default=list)
    users = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="alerts", verbose_name=_("玩家"))
    detail = models.CharField(_("详情"), max_length=200)
    status = models.CharField(_("状态"), max_length=10, choices=STATUSES, default=NEW)
    note = models.TextField(_("备注"), blank=True)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        verbose_name = _("防作弊警报")
        verbose_name_plural = _("防作弊警报")
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["room", "kind", "detail"], name="one_alert_per_finding")]

    def __str__(self):
        return f"#{self.pk} {self.get_kind_display()} · {self.detail}"
