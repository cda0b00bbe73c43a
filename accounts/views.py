"""Sign up, log in, log out and change password (Django's auth views with our templates); the
player's beans (金豆): balance, today against the limits, relief, the ledger."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.paginator import Paginator
from django.shortcuts import redirect, render, resolve_url
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_POST

from accounts import beans as bean_service
from accounts.forms import SignUpForm
from accounts.models import LedgerEntry, SiteSettings
from accounts.throttle import ThrottledAuthenticationForm


def _next_url(request):
    """The ?next= (or posted next) target if it is safe, else ''."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


@sensitive_post_parameters("password1", "password2")
@csrf_protect
@never_cache
def signup(request):
    next_url = _next_url(request)
    if request.user.is_authenticated:
        return redirect(next_url or resolve_url(settings.LOGIN_REDIRECT_URL))
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(next_url or resolve_url(settings.LOGIN_REDIRECT_URL))
    else:
        form = SignUpForm()
    return render(request, "accounts/signup.html", {"form": form, "next": next_url})


class LoginView(auth_views.LoginView):
    """Too many failed logins for a username or from an address: refused for a while (429)."""

    template_name = "accounts/login.html"
    redirect_authenticated_user = True
    form_class = ThrottledAuthenticationForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, "throttled"):
            response.status_code = 429
        return response


class LogoutView(auth_views.LogoutView):
    """POST only (Django's own rule); goes to LOGOUT_REDIRECT_URL or a safe ?next=."""


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "accounts/password_change_done.html"


# --- beans (金豆) ---------------------------------------------------------------------------

LEDGER_PAGE_SIZE = 30


CUT_REASONS = {  # the same words as the result screen (games/table.py)
    "balance": _lazy("余额不足"),
    "hand_limit": _lazy("单局输赢上限"),
    "day_limit": _lazy("当日输赢上限"),
    "winners_cut": _lazy("赢家收取有上限"),
    "losers_cut": _lazy("输家付不足"),
}


def _cut_of(entry):
    """For a hand row whose amount was cut to the limits: (beans the rules said, [why])."""
    hand = entry.hand
    settlement = getattr(hand, "settlement", None) if hand is not None else None
    if settlement is None:
        return None
    position = entry.key.rsplit(":", 1)[-1]
    owed = settlement.owed.get(position)
    if owed is None or owed == entry.amount:
        return None
    why = pgettext("list separator", "、").join(str(CUT_REASONS.get(r, r)) for r in settlement.reasons.get(position, []))
    return owed, why


@login_required
@require_GET
@never_cache
def beans(request):
    """The player's balance, today's won/lost against the limits, relief and the ledger (newest first)."""
    wallet = bean_service.wallet_for(request.user)
    site = SiteSettings.current()
    won, lost = bean_service.day_totals(wallet)
    entries = LedgerEntry.objects.filter(wallet=wallet).select_related("hand__game", "hand__settlement").order_by("-id")
    page = Paginator(entries, LEDGER_PAGE_SIZE).get_page(request.GET.get("page"))
    for entry in page.object_list:
        entry.cut = _cut_of(entry)
    context = {
        "wallet": wallet,
        "site": site,
        "won_today": won,
        "lost_today": lost,
        "won_room": max(0, site.day_limit - won),
        "lost_room": max(0, site.day_limit - lost),
        "at_day_limit": won >= site.day_limit or lost >= site.day_limit,
        "can_claim_relief": bean_service.can_claim_relief(request.user),
        "relief_claimed_today": LedgerEntry.objects.filter(wallet=wallet, reason=LedgerEntry.RELIEF,
                                                           day=bean_service.today()).exists(),
        "page": page,
    }
    return render(request, "accounts/beans.html", context)


@login_required
@require_POST
def claim_relief(request):
    """救济金: POST only; the outcome is a message on the beans page."""
    try:
        entry = bean_service.claim_relief(request.user)
    except bean_service.BeanError as e:
        messages.error(request, str(e))
    else:
        messages.success(request, _("已领取救济金 %(n)s 金豆，现在有 %(balance)s 金豆。")
                         % {"n": f"{entry.amount:,}", "balance": f"{entry.balance_after:,}"})
    return redirect("accounts:beans")
