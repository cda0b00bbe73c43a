"""accounts.Profile, on whichever database DATABASE_URL names (SQLite by default, PostgreSQL in CI pass 2)."""

import io
import os

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, connection, models, transaction
from django.db.models import ProtectedError

from accounts.models import Profile


@pytest.mark.django_db
def test_database_is_the_configured_one():
    expected = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    assert connection.vendor == expected


@pytest.mark.django_db
def test_profile_belongs_to_one_user():
    user = get_user_model().objects.create_user("alice", password="x-very-long-password")
    profile = Profile.objects.create(user=user, nickname="阿丽")
    assert str(profile) == "阿丽"
    assert user.profile == profile
    assert str(Profile(user=user)) == "alice"
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.create(user=user, nickname="again")
    # the profile goes with its user, but a user with a bean ledger is never deleted (append-only)
    assert Profile._meta.get_field("user").remote_field.on_delete is models.CASCADE
    with pytest.raises(ProtectedError):
        user.delete()
    assert Profile.objects.filter(user=user).exists()


@pytest.mark.django_db
def test_migrations_are_up_to_date():
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
