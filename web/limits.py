"""The Generate form's bounds, read from the backend's OpenAPI schema of `POST /learn-loop`.

The backend declares each run setting once, with its bounds, and publishes them in
its OpenAPI document; reading them here keeps the form from offering values the API
would refuse. When the backend cannot be asked, sane defaults (the API's bounds when
this was written) keep the form usable; the answer says which it is.
"""

from __future__ import annotations

from typing import Any

FALLBACK: dict[str, dict[str, int]] = {
    "iterations": {"minimum": 1, "maximum": 50, "default": 3},
    "depth": {"minimum": 1, "maximum": 12, "default": 5},
    "group_size": {"minimum": 2, "maximum": 256, "default": 16},
}
# Text fields the form offers; a backend bound (maxLength) wins over these.
TEXT_FALLBACK: dict[str, int] = {
    "name": 200,
    "company": 200,
    "title": 200,
    "industry": 200,
    "notes": 2000,
    "goal": 300,
    "tech_stack": 500,
}


def _branches(prop: dict[str, Any]) -> list[dict[str, Any]]:
    # `int | None` is published as anyOf [{type: integer, ...}, {type: null}].
    out = [prop]
    for key in ("anyOf", "oneOf", "allOf"):
        out += [b for b in prop.get(key, []) if isinstance(b, dict)]
    return out


def _bound(prop: dict[str, Any], name: str) -> int | None:
    for branch in _branches(prop):
        value = branch.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return int(value)
        if name == "minimum" and isinstance(branch.get("exclusiveMinimum"), int | float):
            return int(branch["exclusiveMinimum"]) + 1
        if name == "maximum" and isinstance(branch.get("exclusiveMaximum"), int | float):
            return int(branch["exclusiveMaximum"]) - 1
    return None


def _resolve(schema: dict[str, Any], node: Any) -> dict[str, Any]:
    """Follow a local `$ref` (also inside anyOf) to the schema it names."""
    if not isinstance(node, dict):
        return {}
    for branch in _branches(node):
        ref = branch.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found = schema.get("components", {}).get("schemas", {}).get(ref.rsplit("/", 1)[1])
            return found if isinstance(found, dict) else {}
    return node


def form_limits(openapi: Any) -> dict[str, Any]:
    """Bounds for the form from an OpenAPI document (or the fallback where it is silent)."""
    numbers = {k: dict(v) for k, v in FALLBACK.items()}
    text = dict(TEXT_FALLBACK)
    accepts_sender = False
    from_backend = False
    schemas = openapi.get("components", {}).get("schemas", {}) if isinstance(openapi, dict) else {}
    request = schemas.get("LearnLoopRequest") if isinstance(schemas, dict) else None
    if isinstance(request, dict) and isinstance(request.get("properties"), dict):
        from_backend = True
        props = request["properties"]
        for key, bounds in numbers.items():
            prop = props.get(key)
            if not isinstance(prop, dict):
                continue
            for name in ("minimum", "maximum", "default"):
                value = _bound(prop, name)
                if value is not None:
                    bounds[name] = value
            bounds["default"] = min(max(bounds["default"], bounds["minimum"]), bounds["maximum"])
        accepts_sender = "sender" in props
        scenario = _resolve(openapi, props.get("scenario"))
        goal = scenario.get("properties", {}).get("goal")
        if isinstance(goal, dict) and _bound(goal, "maxLength"):
            text["goal"] = _bound(goal, "maxLength") or text["goal"]
        prospect = _resolve(openapi, scenario.get("properties", {}).get("prospect"))
        for key, prop in prospect.get("properties", {}).items():
            if key in text and isinstance(prop, dict) and _bound(prop, "maxLength"):
                text[key] = _bound(prop, "maxLength") or text[key]
    return {
        "source": "backend" if from_backend else "fallback",
        "numbers": numbers,
        "text": text,
        "accepts_sender": accepts_sender,
    }
