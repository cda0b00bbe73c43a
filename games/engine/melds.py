"""Exposed and concealed-kong melds (副露)."""

from __future__ import annotations

from dataclasses import dataclass

from .tiles import WHITE, TileError, face_name, format_tiles, is_honor, parse_tiles

CHOW, PUNG, KONG, CKONG = "chow", "pung", "kong", "ckong"  # 吃 碰 明杠 暗杠
MELD_KINDS = (CHOW, PUNG, KONG, CKONG)


@dataclass(frozen=True)
class Meld:
    """A declared set. `tiles` are the physical faces (a white standing in for the wild face
    stays 5z here); `face` is the logical face of a pung/kong or the lowest face of a chow."""

    kind: str
    tiles: tuple[int, ...]
    face: int
    claimed: int | None = None  # the physical tile taken from a discard
    from_seat: int | None = None  # seat index the claimed tile came from

    @property
    def is_kong(self) -> bool:
        return self.kind in (KONG, CKONG)

    @property
    def is_chow(self) -> bool:
        return self.kind == CHOW

    def notation(self) -> str:
        return f"{self.kind}:{format_tiles(self.tiles)}"


def logical_chow_faces(tiles, wild: int | None) -> tuple[int, ...] | None:
    """The three faces of a chow, whites read as the wild face (白板 stands in for 财神).
    None when the tiles do not make a chow."""
    faces = sorted(wild if (t == WHITE and wild is not None and wild != WHITE) else t for t in tiles)
    if len(faces) != 3 or any(is_honor(f) for f in faces):
        return None
    a, b, c = faces
    if a // 9 == c // 9 and b == a + 1 and c == a + 2:
        return (a, b, c)
    return None


def make_meld(kind: str, tiles, wild: int | None, claimed=None, from_seat=None) -> Meld:
    """Build a meld, checking it is well formed. Raises TileError."""
    tiles = tuple(tiles)
    if kind not in MELD_KINDS:
        raise TileError(f"unknown meld kind {kind!r} (use chow, pung, kong or ckong)", "meld_kind",
                        {"text": kind, "kind": kind})
    if wild is not None and wild in tiles:
        raise TileError(f"a wild ({face_name(wild)}) cannot be part of a meld", "meld_wild", {"tile": face_name(wild)})
    if kind == CHOW:
        faces = logical_chow_faces(tiles, wild)
        if faces is None:
            raise TileError(f"{format_tiles(tiles)} is not a chow (three consecutive tiles of one suit)", "meld_shape",
                            {"kind": kind, "tiles": format_tiles(tiles)})
        return Meld(kind, tiles, faces[0], claimed, from_seat)
    size = 3 if kind == PUNG else 4
    if len(tiles) != size or len(set(tiles)) != 1:
        what = "pung needs three" if kind == PUNG else "kong needs four"
        raise TileError(f"{format_tiles(tiles)} is not a {kind}: a {what} identical tiles", "meld_shape",
                        {"kind": kind, "tiles": format_tiles(tiles)})
    return Meld(kind, tiles, tiles[0], claimed, from_seat)


def split_meld(text: str) -> tuple[str, list[int]]:
    """The writing of a meld only: 'pung:777z' -> ("pung", [33, 33, 33]). Checks kind:tiles, a
    known kind and mpsz tiles, not whether the tiles make that meld (make_meld does)."""
    if not isinstance(text, str) or ":" not in text:
        raise TileError(f"bad meld {text!r}: write kind:tiles, e.g. pung:777z", "meld_syntax", {"text": text})
    kind, _, body = text.partition(":")
    kind = kind.strip().lower()
    if kind not in MELD_KINDS:
        raise TileError(f"unknown meld kind {kind!r} (use chow, pung, kong or ckong)", "meld_kind",
                        {"text": text, "kind": kind})
    return kind, parse_tiles(body)


def parse_meld(text: str, wild: int | None) -> Meld:
    """'pung:777z', 'chow:345s', 'kong:1111m', 'ckong:9999p', 'chow:46p5z' (white as the wild face)."""
    kind, faces = split_meld(text)
    return make_meld(kind, faces, wild)
