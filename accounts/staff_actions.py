"""Admin actions in two steps (客服操作): the action opens a form page (a reason is always required;
a bean adjustment also asks for the amount), and the confirmed form runs the service, which
audits. A refusal (BeanError / ServiceError) is shown as an admin message on the form page and
nothing changes: every action runs all its objects in one transaction."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _

from games.services import ServiceError

from .beans import BeanError

MAX_ADJUST = 10**12  # far above any ceiling; keeps the number inside a BigIntegerField


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("原因"), max_length=200, required=True,
                             widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                             help_text=_("必填，写入操作日志"))


class AdjustBeansForm(ReasonForm):
    amount = forms.IntegerField(label=_("调整数量（金豆）"), min_value=-MAX_ADJUST, max_value=MAX_ADJUST,
                                help_text=_("正数加金豆，负数扣金豆；客服单次不超过站点设置里的上限"))
    field_order = ["amount", "reason"]

    def clean_amount(self):
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise ValidationError(_("调整数量不能为 0"))
        return amount


class ActionRefused(Exception):
    """A staff action refused before the service was called (the message is for the staff)."""


def action_with_form(modeladmin, request, queryset, *, form_class, title, intro, apply, describe=str):
    """Step 1 renders the form for the selected objects; step 2 (the form posted back with
    `apply`) validates it and calls `apply(objects, cleaned_data)` in one transaction, which returns
    the success message. Returning None sends the admin back to the change list."""
    objects = list(queryset)
    if "apply" in request.POST:
        form = form_class(request.POST)
        if form.is_valid():
            try:
                with transaction.atomic():
                    done = apply(objects, form.cleaned_data)
            except (ActionRefused, BeanError, ServiceError) as e:
                modeladmin.message_user(request, str(e), messages.ERROR)
            else:
                modeladmin.message_user(request, done, messages.SUCCESS)
                return None
    else:
        form = form_class()
    opts = modeladmin.model._meta
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "subtitle": None,
        "intro": intro,
        "objects": [(obj.pk, describe(obj)) for obj in objects],
        "form": form,
        "opts": opts,
        "action_name": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "media": modeladmin.media + form.media,
    }
    request.current_app = modeladmin.admin_site.name
    return TemplateResponse(request, "admin/staff_action.html", context)
