"""The audit log: every staff action, written in the same transaction as the action itself."""

from .models import AuditLog


def record(staff, action: str, target: str, detail: str = "") -> AuditLog:
    return AuditLog.objects.create(staff=staff, action=action, target=target[:120], detail=detail or "")
