"""The admin pages: the rule set in evaluation order with what each rule did, its
changes (add, edit, reorder, toggle, shadow, delete), a draft rule tried first, the
poster watch, build outcomes by day, and `status.json` for monitors.

Open only to an admin key (`serving/admin_access.py`). Every change is a form of ours
(`serving/csrf.py`), goes through the rule store (`pipelines/rules/store.py`, which
checks it and keeps the set versioned) and is logged with who and when
(`serving/admin_log.py`). Plain HTML forms: everything works without JavaScript.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from pipelines.rules import store
from pipelines.rules.model import ACTIONS, FIELDS, STATES
from serving import admin_access, admin_status, csrf, signin
from serving.admin_access import Admin, AdminDep, AdminMachineDep
from serving.admin_trial import try_draft
from serving.state import Catalog, CatalogDep
from serving.web import _render

router = APIRouter(prefix="/admin", tags=["admin"], default_response_class=HTMLResponse)

_WRONG_KEY = "That is not an admin key."
_SLOWED = "Too many wrong keys from this address: try again in {} s."
_NO_TOKEN = "This form came from another site, or was open too long: try again here."


def _page(request: Request, catalog: Catalog, name: str, **context: Any) -> HTMLResponse:
    access = signin.visitor(request, catalog)
    response = _render(request, catalog, access, name, admin=True, **context)
    response.headers["Cache-Control"] = "private, no-store"
    return response


# -- signing in --------------------------------------------------------------------


@router.get("/signin")
def admin_sign_in_page(request: Request, catalog: CatalogDep) -> HTMLResponse:
    response = _sign_in_form(request, catalog, "")
    if admin_access.presented_key(request) is not None and not admin_access.admin_of(
        request, catalog
    ):
        admin_access.forget_admin_key(response, request)  # a key no longer accepted
    return response


@router.post("/signin", response_model=None)
async def admin_sign_in(request: Request, catalog: CatalogDep) -> Response:
    fields = await signin.form_fields(request)
    if fields is None or csrf.refusal(request, fields) is not None:
        return _sign_in_form(request, catalog, _NO_TOKEN, 403)
    wait = signin.slowed(request, catalog)
    if wait:
        return _sign_in_form(request, catalog, _SLOWED.format(wait), 429)
    key = (fields.get("adminkey") or "").strip()
    client = signin.client_address(request)
    if not admin_access.is_admin_key(catalog, key):
        signin.wrong_key(request, catalog, key, admin_access.SIGN_IN)
        catalog.admin_log.record(f"?@{client}", "sign in", outcome="wrong key")
        return _sign_in_form(request, catalog, _WRONG_KEY, 403)
    admin = Admin(admin_access.key_id(key), client)
    catalog.admin_log.record(admin.who, "sign in")
    response = RedirectResponse("/admin", status_code=303)
    admin_access.keep_admin_key(response, request, key)
    return response


@router.post("/signout", response_model=None)
async def admin_sign_out(request: Request, catalog: CatalogDep, admin: AdminDep) -> Response:
    if await _refused(request) is not None:
        return _sign_in_form(request, catalog, _NO_TOKEN, 403)
    catalog.admin_log.record(admin.who, "sign out")
    response = RedirectResponse(admin_access.SIGN_IN, status_code=303)
    admin_access.forget_admin_key(response, request)
    return response


def _sign_in_form(request: Request, catalog: Catalog, message: str, status: int = 200
                  ) -> HTMLResponse:  # fmt: skip
    return _page(request, catalog, "admin_signin.html", title="Admin sign-in",
                 message=message, status_code=status)  # fmt: skip


# -- the rule set ----------------------------------------------------------------------


@router.get("")
def rules_page(request: Request, catalog: CatalogDep, admin: AdminDep) -> HTMLResponse:
    return _rules(request, catalog, admin)


def _rules(request: Request, catalog: Catalog, admin: Admin, message: str = "",
           status: int = 200, draft: dict[str, str] | None = None) -> HTMLResponse:  # fmt: skip
    where = catalog.settings.catalog
    rules = store.rule_counters(where)
    for r in rules:
        r["spark"] = sparkline([d["headers"] for d in r["days"]])
    operator = [r for r in rules if not r["builtin"]]
    return _page(request, catalog, "admin_rules.html", title="Rules", rules=rules,
                 operator_ids=[r["id"] for r in operator], message=message,
                 version=store.load_rules(where).fingerprint, who=admin.who,
                 actions=catalog.admin_log.recent(20), draft=draft or {},
                 fields=FIELDS, rule_actions=ACTIONS, states=STATES,
                 status_code=status)  # fmt: skip


async def _posted(request: Request, catalog: Catalog, admin: Admin, change: Any,
                  *args: Any) -> Response:  # fmt: skip
    """A form of ours read in the event loop; `change(request, catalog, admin, fields,
    *args)` in the thread pool (catalog reads, a rule's check against the recent headers,
    a try): the loop serves /api meanwhile. Any other post changes nothing."""
    fields = await _form(request)
    if fields is None:
        return await run_in_threadpool(_rules, request, catalog, admin, _NO_TOKEN, 403)
    response: Response = await run_in_threadpool(change, request, catalog, admin, fields, *args)
    return response


@router.post("/rules", response_model=None)
async def add_rule(request: Request, catalog: CatalogDep, admin: AdminDep) -> Response:
    return await _posted(request, catalog, admin, _add)


def _add(request: Request, catalog: Catalog, admin: Admin, fields: dict[str, str]) -> Response:
    draft = _draft(fields)
    try:
        rule = store.add_rule(catalog.settings.catalog, draft["pattern"], admin.who,
                              field=draft["field"], literal=draft["literal"] == "1",
                              group=draft["group"], action=draft["action"],
                              state=draft["state"], note=draft["note"],
                              force=fields.get("force") == "1")  # fmt: skip
    except store.RuleRefused as exc:
        catalog.admin_log.record(admin.who, "add rule", draft["pattern"], f"refused: {exc}")
        return _rules(request, catalog, admin, f"Refused: {exc}", 400, draft)
    catalog.admin_log.record(admin.who, "add rule", rule.id, pattern=rule.pattern,
                              rule_action=rule.action, state=rule.state)  # fmt: skip
    return RedirectResponse(f"/admin#rule-{rule.id}", status_code=303)


@router.get("/rules/{rule_id}")
def rule_page(rule_id: str, request: Request, catalog: CatalogDep, admin: AdminDep
              ) -> HTMLResponse:  # fmt: skip
    return _rule(request, catalog, rule_id)


def _rule(request: Request, catalog: Catalog, rule_id: str, message: str = "",
          status: int = 200, trial: dict[str, Any] | None = None,
          draft: dict[str, str] | None = None) -> HTMLResponse:  # fmt: skip
    where = catalog.settings.catalog
    found = [r for r in store.rule_counters(where) if r["id"] == rule_id]
    if not found:
        return _page(request, catalog, "error.html", message="No such rule", status_code=404)
    rule = found[0]
    rule["spark"] = sparkline([d["headers"] for d in rule["days"]])
    operator = [r.id for r in store.load_rules(where).operator]
    rule["operator_place"] = operator.index(rule_id) + 1 if rule_id in operator else 0
    return _page(request, catalog, "admin_rule.html", title=f"Rule {rule_id}", rule=rule,
                 message=message, trial=trial,
                 draft=draft or {k: str(rule[k]) for k in _DRAFT} | {
                     "literal": "1" if rule["literal"] else ""},
                 fields=FIELDS, rule_actions=ACTIONS, states=STATES,
                 status_code=status)  # fmt: skip


# a rule's change from the list's buttons: the form's `op`
_STATE_OPS = {"on": "on", "off": "off", "shadow": "shadow"}


@router.post("/rules/{rule_id}", response_model=None)
async def change_rule(rule_id: str, request: Request, catalog: CatalogDep, admin: AdminDep
                      ) -> Response:  # fmt: skip
    return await _posted(request, catalog, admin, _change, rule_id)


def _change(request: Request, catalog: Catalog, admin: Admin, fields: dict[str, str],
            rule_id: str) -> Response:  # fmt: skip
    op = fields.get("op", "")
    where = catalog.settings.catalog
    back = f"/admin#rule-{rule_id}"
    try:
        if op in _STATE_OPS:
            store.update_rule(where, rule_id, admin.who, state=_STATE_OPS[op])
        elif op in ("up", "down"):
            ids = [r.id for r in store.load_rules(where).operator]
            at = ids.index(rule_id) if rule_id in ids else -1
            store.move_rule(where, rule_id, max(0, at + (-1 if op == "up" else 1)), admin.who)
        elif op == "move":
            place = fields.get("position", "").strip()  # 1-based, as the page shows it
            if not place.isdigit():
                raise store.RuleRefused(f"the place must be a number, not {place!r}")
            store.move_rule(where, rule_id, int(place) - 1, admin.who)
        elif op == "delete":
            store.delete_rule(where, rule_id, admin.who)
            back = "/admin"
        elif op == "update":
            draft = _draft(fields)
            store.update_rule(where, rule_id, admin.who, force=fields.get("force") == "1",
                              pattern=draft["pattern"], field=draft["field"],
                              literal=draft["literal"] == "1", group=draft["group"],
                              action=draft["action"], state=draft["state"],
                              note=draft["note"])  # fmt: skip
        elif op == "try":
            trial = try_draft(catalog, _draft(fields), rule_id)
            catalog.admin_log.record(admin.who, "try rule", rule_id, trial.get("error") or "done")
            return _rule(request, catalog, rule_id, trial=trial, draft=_draft(fields))
        else:
            return _rules(request, catalog, admin, f"Unknown change {op!r}", 400)
    except (store.RuleRefused, ValueError) as exc:
        catalog.admin_log.record(admin.who, op or "change", rule_id, f"refused: {exc}")
        if op == "update":
            return _rule(request, catalog, rule_id, f"Refused: {exc}", 400,
                         draft=_draft(fields))  # fmt: skip
        return _rules(request, catalog, admin, f"Refused: {exc}", 400)
    catalog.admin_log.record(admin.who, f"{op} rule", rule_id)
    return RedirectResponse(back, status_code=303)


@router.post("/try", response_model=None)
async def try_page(request: Request, catalog: CatalogDep, admin: AdminDep) -> Response:
    """A draft rule tried on what is stored, nothing changed: the page's 'Try' button."""
    return await _posted(request, catalog, admin, _try)


def _try(request: Request, catalog: Catalog, admin: Admin, fields: dict[str, str]) -> Response:
    draft = _draft(fields)
    trial = try_draft(catalog, draft)
    catalog.admin_log.record(admin.who, "try rule", draft["pattern"], trial.get("error") or
                              "done")  # fmt: skip
    return _page(request, catalog, "admin_try.html", title="Try a rule", draft=draft,
                 trial=trial, fields=FIELDS, rule_actions=ACTIONS, states=STATES)  # fmt: skip


# -- what the rules did ----------------------------------------------------------------


@router.get("/posters")
def posters_page(request: Request, catalog: CatalogDep, admin: AdminDep) -> HTMLResponse:
    watched, problem = admin_status.attempt(store.poster_watch, catalog.settings.catalog)
    return _page(request, catalog, "admin_posters.html", title="Poster watch",
                 watched=watched or [], problem=problem)  # fmt: skip


@router.get("/builds")
def builds_page(request: Request, catalog: CatalogDep, admin: AdminDep) -> HTMLResponse:
    rows, problem = admin_status.attempt(store.build_outcomes, catalog.settings.catalog, 14)
    return _page(request, catalog, "admin_builds.html", title="Build outcomes",
                 days=admin_status.by_day(rows or []), problem=problem)  # fmt: skip


@router.get("/status.json", response_class=JSONResponse)
def status_json(catalog: CatalogDep, admin: AdminMachineDep) -> JSONResponse:
    body = admin_status.status(catalog, catalog.admin_log)
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


# -- helpers ----------------------------------------------------------------------------

_DRAFT = ("pattern", "field", "literal", "group", "action", "state", "note")


def _draft(fields: dict[str, str]) -> dict[str, str]:
    """A rule's fields as the form sent them (checked by the store, not here)."""
    draft = {k: fields.get(k, "") for k in _DRAFT}
    draft["field"] = draft["field"] or "subject"
    draft["action"] = draft["action"] or "drop"
    draft["state"] = draft["state"] or "on"
    return draft


async def _refused(request: Request) -> str | None:
    fields = await signin.form_fields(request)
    return "no form" if fields is None else csrf.refusal(request, fields)


async def _form(request: Request) -> dict[str, str] | None:
    """A posted form of ours, or None (not a form, cross-site, or no token)."""
    fields = await signin.form_fields(request)
    if fields is None or csrf.refusal(request, fields) is not None:
        return None
    return fields


def sparkline(values: list[int], width: int = 90, height: int = 18) -> str:
    """An SVG polyline's points for a rule's per-day headers (oldest first)."""
    if not values:
        return ""
    top = max(values) or 1
    step = width / max(1, len(values) - 1)
    return " ".join(
        f"{i * step:.1f},{height - 1 - (v / top) * (height - 2):.1f}" for i, v in enumerate(values)
    )


def install(app: Any) -> None:
    """Add the admin routes and their exception handlers to the app."""
    app.include_router(router)
    app.add_exception_handler(admin_access.AdminSignInNeeded, _to_sign_in)
    app.add_exception_handler(admin_access.AdminKeyNeeded, _key_needed)


def _to_sign_in(request: Request, exc: Exception) -> Response:
    return RedirectResponse(admin_access.SIGN_IN, status_code=303)


def _key_needed(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": "an admin key is needed (Authorization: Bearer <key>)"},
                        status_code=401, headers={"WWW-Authenticate": "Bearer"})  # fmt: skip
