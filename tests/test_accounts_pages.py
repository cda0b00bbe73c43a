"""Sign up (with a nickname), log in, log out, change password, and the header's account links."""

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Profile, display_name

pytestmark = pytest.mark.django_db

PASSWORD = "Tile-table-2024!"
SIGNUP, LOGIN, LOGOUT, PASSWORD_CHANGE = "/accounts/signup/", "/accounts/login/", "/accounts/logout/", "/accounts/password/"


def _user(username, nickname=None, password=PASSWORD):
    user = get_user_model().objects.create_user(username, password=password)
    if nickname is not None:
        Profile.objects.create(user=user, nickname=nickname)
    return user


@pytest.fixture
def host():
    return _user("host", "东家老王")


@pytest.fixture
def outsider():
    return _user("outsider")  # no profile: made like createsuperuser would


def _signup(client, **overrides):
    data = {"username": "alice", "nickname": "阿丽", "password1": PASSWORD, "password2": PASSWORD}
    data.update(overrides)
    return client.post(SIGNUP, data)


def _logged_in_user_id(client):
    return client.session.get("_auth_user_id")


def test_sign_up_creates_user_and_profile_and_logs_in(client):
    page = client.get(SIGNUP)
    assert page.status_code == 200
    html = page.content.decode()
    for name in ("username", "nickname", "password1", "password2"):
        assert f'name="{name}"' in html

    response = _signup(client, nickname="  阿丽   小妹 ")
    assert response.status_code == 302 and response["Location"] == "/lobby/"
    user = get_user_model().objects.get(username="alice")
    assert user.check_password(PASSWORD)
    assert user.profile.nickname == "阿丽 小妹"
    assert _logged_in_user_id(client) == str(user.pk)
    assert "阿丽 小妹" in client.get("/").content.decode()


def test_sign_up_goes_back_to_a_safe_next_only(client):
    response = client.post(SIGNUP + "?next=/join/abc/", {
        "username": "bob", "nickname": "阿博", "password1": PASSWORD, "password2": PASSWORD})
    assert response["Location"] == "/join/abc/"
    client.logout()
    response = _signup(client, username="carol", nickname="卡罗", next="https://evil.example/")
    assert response["Location"] == "/lobby/"


@pytest.mark.parametrize("overrides, field", [
    ({"password2": PASSWORD + "x"}, "password2"),
    ({"nickname": "   "}, "nickname"),
    ({"nickname": "长" * 33}, "nickname"),
    ({"username": ""}, "username"),
    ({"username": "bad name!"}, "username"),
    ({"password1": "12345678", "password2": "12345678"}, "password2"),
])
def test_bad_sign_up_shows_errors_and_creates_nothing(client, overrides, field):
    response = _signup(client, **overrides)
    assert response.status_code == 200
    assert response.context["form"].errors.get(field)
    assert 'class="error"' in response.content.decode()
    assert not get_user_model().objects.exists() and not Profile.objects.exists()
    assert _logged_in_user_id(client) is None


def test_usernames_are_unique_ignoring_case(client, host):
    response = _signup(client, username="HOST")
    assert response.context["form"].errors.get("username")
    assert get_user_model().objects.count() == 1


def test_log_in_and_redirect(client, host):
    page = client.get(LOGIN + "?next=/lobby/")
    assert page.status_code == 200
    assert 'name="next" value="/lobby/"' in page.content.decode()
    response = client.post(LOGIN, {"username": "host", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/lobby/"
    assert _logged_in_user_id(client) == str(host.pk)


def test_log_in_goes_to_next(client, host):
    response = client.post(LOGIN, {"username": "host", "password": PASSWORD, "next": "/join/tok/"})
    assert response["Location"] == "/join/tok/"


def test_log_in_with_a_wrong_password_fails(client, host):
    response = client.post(LOGIN, {"username": "host", "password": "wrong"})
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert 'class="alert"' in response.content.decode()
    assert _logged_in_user_id(client) is None


def test_log_out_is_a_post(client, host):
    client.force_login(host)
    assert client.get(LOGOUT).status_code == 405
    assert _logged_in_user_id(client) == str(host.pk)
    response = client.post(LOGOUT)
    assert response.status_code == 302 and response["Location"] == "/"
    assert _logged_in_user_id(client) is None


def test_change_password(client, host):
    assert client.get(PASSWORD_CHANGE)["Location"] == LOGIN + "?next=" + PASSWORD_CHANGE
    client.force_login(host)
    assert client.get(PASSWORD_CHANGE).status_code == 200
    new = "Another-table-2025!"
    bad = client.post(PASSWORD_CHANGE, {"old_password": "nope", "new_password1": new, "new_password2": new})
    assert bad.status_code == 200 and bad.context["form"].errors.get("old_password")
    response = client.post(PASSWORD_CHANGE, {"old_password": PASSWORD, "new_password1": new, "new_password2": new})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/done/"
    assert client.get(response["Location"]).status_code == 200
    assert _logged_in_user_id(client) == str(host.pk)  # still logged in on this device
    host.refresh_from_db()
    assert host.check_password(new) and not host.check_password(PASSWORD)


def test_header_for_anonymous_visitors(client):
    html = client.get("/calculator/").content.decode()
    assert 'href="/lobby/"' in html
    assert 'href="/accounts/login/?next=/calculator/"' in html
    assert 'href="/accounts/signup/?next=/calculator/"' in html
    assert 'action="/accounts/logout/"' not in html


def test_header_shows_nickname_and_log_out(client, host):
    client.force_login(host)
    html = client.get("/").content.decode()
    assert "东家老王" in html
    assert 'action="/accounts/logout/"' in html
    assert 'href="/accounts/login/' not in html


def test_header_falls_back_to_the_username(client, outsider):
    client.force_login(outsider)
    assert '>outsider</a>' in client.get("/").content.decode()


def test_display_name(host, outsider):
    from django.contrib.auth.models import AnonymousUser

    assert display_name(host) == "东家老王"
    assert display_name(outsider) == "outsider"
    assert display_name(AnonymousUser()) == "" and display_name(None) == ""
    Profile.objects.create(user=outsider, nickname="")
    outsider.refresh_from_db()
    assert display_name(outsider) == "outsider"


def test_pages_in_english(client):
    client.cookies["django_language"] = "en"
    html = client.get(SIGNUP).content.decode()
    assert '<html lang="en">' in html
    assert "Sign up" in html and "Nickname" in html and "注册" not in html
    html = client.get(LOGIN).content.decode()
    assert "Log in" in html


def test_login_remembers_the_address_for_customer_service(client, django_user_model):
    from accounts.models import SeenIP

    import weakref

    from django.contrib.auth.signals import user_logged_in

    # the receiver is a function nested in AccountsConfig.ready(): held weakly it would be
    # collected at any moment in a long-running server (and login addresses silently lost)
    held = [r for key, r, *_rest in user_logged_in.receivers if key[0] == "accounts.remember_login_ip"]
    assert held and not isinstance(held[0], weakref.ReferenceType)
    user = django_user_model.objects.create_user("seenip", password="a-long-pass-1234")
    client.post("/accounts/login/", {"username": "seenip", "password": "a-long-pass-1234"}, REMOTE_ADDR="203.0.113.9")
    assert SeenIP.objects.filter(user=user, ip="203.0.113.9").exists()
