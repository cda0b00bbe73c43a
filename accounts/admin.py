"""Admin for beans (金豆): staff edit the limits and grants at run time (one SiteSettings row);
wallets, the ledger and hand settlements are read-only here (every change of a balance goes
through accounts.beans; a customer-service admin for adjustments comes later)."""

from django.contrib import admin
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts.models import HandSettlement, LedgerEntry, SiteSettings, Wallet


@admin.register(SiteSettings)
class SiteSettingsAdmin(admin.ModelAdmin):
    list_display = ("__str__", "hand_limit", "day_limit", "starting_grant", "relief_amount", "relief_threshold",
                    "updated_at")
    fields = ("hand_limit", "day_limit", "starting_grant", "relief_amount", "relief_threshold", "updated_at")
    readonly_fields = ("updated_at",)

    def has_add_permission(self, request):
        return False  # the single row (pk=1) is made on first use

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        """Straight to the one row (made if missing) for staff who may change it."""
        if self.has_change_permission(request):
            obj = SiteSettings.current()
            return redirect(reverse("admin:accounts_sitesettings_change", args=[obj.pk]))
        return super().changelist_view(request, extra_context)


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only: no add, change or delete (the ledger is append-only and written by accounts.beans)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    list_display = ("user", "balance")
    search_fields = ("user__username", "user__profile__nickname")
    list_select_related = ("user__profile",)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "wallet", "reason", "amount", "balance_after", "hand", "staff", "note")
    list_filter = ("reason", "day")
    search_fields = ("wallet__user__username", "key", "note")
    list_select_related = ("wallet__user__profile", "staff", "hand")
    date_hierarchy = "created_at"


@admin.register(HandSettlement)
class HandSettlementAdmin(ReadOnlyAdmin):
    list_display = ("hand", "stake", "owed", "paid", "reasons", "cut", "created_at")
    list_select_related = ("hand",)

    @admin.display(boolean=True, description=_("按上限削减"))
    def cut(self, obj):
        return obj.was_cut
