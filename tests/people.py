"""Who is at the table in tests: one way to make a person, and the shared fixtures (tests/conftest.py)
`host` (东家老王, opens rooms), `guest` (南家小李, joins by the invite), `outsider` (路人甲, has no
seat) and `staff` (客服小王, the customer-service admin)."""

from django.contrib.auth import get_user_model

from accounts.models import Profile

NICKNAMES = {"host": "东家老王", "guest": "南家小李", "outsider": "路人甲", "staff": "客服小王"}


def make_person(username, nickname=None, **extra):
    """A user with a profile (nickname: the given one, else the usual one for the fixture names
    above, else "<username>昵称") and a password only tests know."""
    user = get_user_model().objects.create_user(username, password="pw-" + username + "-long", **extra)
    Profile.objects.create(user=user, nickname=nickname or NICKNAMES.get(username, f"{username}昵称"))
    return user
