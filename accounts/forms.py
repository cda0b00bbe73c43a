from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from accounts.models import Profile


class SignUpForm(UserCreationForm):
    """Username (to log in), nickname (shown at the table) and the password twice."""

    nickname = forms.CharField(
        label=pgettext_lazy("form label", "昵称"),
        max_length=Profile._meta.get_field("nickname").max_length,
        help_text=_("牌桌上别人看到的名字，可以用中文"),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "nickname")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = _("登录用；字母、数字、汉字和 @ . + - _，最多 150 个字符")
        self.fields["username"].widget.attrs.update({"autocapitalize": "none", "autocomplete": "username"})

    def clean_nickname(self):
        nickname = " ".join(self.cleaned_data["nickname"].split())
        if not nickname:
            raise forms.ValidationError(_("请填写昵称"))
        return nickname

    @transaction.atomic
    def save(self, commit=True):
        user = super().save(commit=commit)
        if commit:
            Profile.objects.create(user=user, nickname=self.cleaned_data["nickname"])
        return user
