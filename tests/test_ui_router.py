"""The /ui/ routes serve the built pages and nothing else: HTML with a same-origin-only content
policy, assets from an allow-listed folder (no paths out of it), and a clear 404 otherwise."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.ui_router import ASSETS, STATIC, ui_router

app = FastAPI()
app.include_router(ui_router)
client = TestClient(app)


def test_pages_are_served_with_a_same_origin_policy() -> None:
    for path, script in (("/ui/lineage", "assets/lineage.js"), ("/ui/fold", "assets/fold.js")):
        response = client.get(path, params={"from": "X"})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert script in response.text
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "connect-src 'self'" in policy
        assert "http" not in response.text.replace("http-equiv", "")  # no CDN, no remote URL
    assert client.get("/ui", follow_redirects=False).headers["location"] == "/ui/lineage"


def test_built_assets_are_shipped_and_small() -> None:
    names = {p.name for p in ASSETS.iterdir()}
    assert {"lineage.js", "fold.js", "ui.css", "THIRD-PARTY-LICENSES.txt"} <= names
    assert (STATIC / "lineage.html").is_file() and (STATIC / "fold.html").is_file()
    assert sum(p.stat().st_size for p in ASSETS.iterdir()) < 200_000
    for name in ("lineage.js", "fold.js", "ui.css"):
        body = (ASSETS / name).read_text(encoding="utf-8")
        urls = set(re.findall(r"https?://[^\"'\s)]+", body))
        assert {u for u in urls if not u.startswith("http://www.w3.org/")} == set(), name
    response = client.get("/ui/assets/lineage.js")
    assert response.status_code == 200 and "javascript" in response.headers["content-type"]


def test_assets_outside_the_folder_are_not_served() -> None:
    for name in ("..%2Fui_router.py", "..%2F..%2Fapp.py", ".hidden.js", "nope.js", "x.py",
                 "%2Fetc%2Fpasswd"):
        assert client.get(f"/ui/assets/{name}").status_code == 404, name
