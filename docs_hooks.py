"""mkdocs hooks: pages whose content is generated at build time, so they cannot drift from the code.

A marker on a line of its own asks for generated content: `<!-- generated: openapi -->` the
service API rendered from `service.http.create_app(...).openapi()`, `<!-- generated: house-rules
-->` the table of the house-rule registry `wecore.rulesets.HOUSE_RULES`. The command
reference needs no hook (the mkdocs-click extension renders the click commands), and the speed
page is written whole by `tests/bench/bench.py --write-docs`.

Two more hooks keep the theme at WCAG AA: every table sits in a region of its own that a keyboard
can focus and scroll sideways (a wide table on a phone), and the theme's search dialog is named.
"""

from __future__ import annotations

import html
import json
import re
import tempfile
from pathlib import Path
from typing import Any

OPENAPI_MARKER = "<!-- generated: openapi -->"
HOUSE_RULES_MARKER = "<!-- generated: house-rules -->"


def openapi_schema() -> dict[str, Any]:
    from service.http import create_app

    # The app only reads its folder when a request comes; an empty one gives the same schema.
    with tempfile.TemporaryDirectory(prefix="we-docs-") as folder:
        app = create_app(Path(folder), "http://127.0.0.1:8765", "docs-build-key-not-a-secret-0000")
        return app.openapi()


def _schema_name(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return f"`{schema['$ref'].rsplit('/', 1)[-1]}`"
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            return " or ".join(_schema_name(part) for part in schema[combinator])
    return f"`{schema.get('type', 'any')}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_openapi(schema: dict[str, Any]) -> str:
    out: list[str] = [
        f"Generated from the app's OpenAPI schema ({schema['info']['title']}, "
        f"API version {schema['info']['version']}, OpenAPI {schema['openapi']}). "
        "A running `we serve` answers the same schema at `/openapi.json`.",
        "",
    ]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            out += [f"## `{method.upper()} {path}`", ""]
            if operation.get("summary"):
                out += [f"**{operation['summary']}.**", ""]
            if operation.get("description"):
                out += [operation["description"].strip(), ""]
            parameters = operation.get("parameters", [])
            if parameters:
                out += ["| parameter | in | required | type | description |", "|---|---|---|---|---|"]
                for parameter in parameters:
                    out.append(
                        f"| `{parameter['name']}` | {parameter['in']} | "
                        f"{'yes' if parameter.get('required') else 'no'} | "
                        f"{_schema_name(parameter.get('schema', {}))} | "
                        f"{_cell(parameter.get('description', ''))} |"
                    )
                out.append("")
            body = operation.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                out += [f"Request body ({media}): {_schema_name(content.get('schema', {}))}", ""]
            out += ["| status | meaning |", "|---|---|"]
            for status, response in sorted(operation.get("responses", {}).items()):
                out.append(f"| {status} | {_cell(response.get('description', ''))} |")
            out.append("")
    components = schema.get("components", {}).get("schemas", {})
    if components:
        out += ["## Schemas", ""]
        for name, component in components.items():
            out += [f"### `{name}`", "", "```json", json.dumps(component, indent=2), "```", ""]
    return "\n".join(out)


def render_house_rules() -> str:
    from wecore.rulesets import HOUSE_RULES

    out = [
        "| option (`options` key) | flag (`we record`, `we simulate`) | shape | what it does | default |",
        "|---|---|---|---|---|",
    ]
    for rule in HOUSE_RULES:
        default = "the printed rules" if rule.default is None else f"`{json.dumps(rule.default)}`"
        out.append(
            f"| `{rule.name}` | `{rule.flag}` | {rule.shape.name.lower().replace('_', ' ')} | "
            f"{_cell(rule.flag_help)} | {default} |"
        )
    return "\n".join(out)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if OPENAPI_MARKER in markdown:
        markdown = markdown.replace(OPENAPI_MARKER, render_openapi(openapi_schema()))
    if HOUSE_RULES_MARKER in markdown:
        markdown = markdown.replace(HOUSE_RULES_MARKER, render_house_rules())
    return markdown


_TABLE = re.compile(r"<table>(.*?)</table>", re.DOTALL)
_FIRST_HEADER = re.compile(r"<th[^>]*>(.*?)</th>", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'


def scrollable_tables(content: str) -> str:
    """Each table in a focusable region named after its first column, so that a keyboard can
    scroll a table wider than the screen (WCAG 2.1.1; axe's scrollable-region-focusable)."""

    def wrap(match: re.Match[str]) -> str:
        header = _FIRST_HEADER.search(match.group(1))
        first = html.unescape(_TAGS.sub("", header.group(1))).strip() if header else ""
        label = f"Table: {first}, and the columns after it" if first else "Table"
        return (
            f'<div class="table-scroll" role="region" tabindex="0" aria-label="{html.escape(label)}">'
            f"{match.group(0)}</div>"
        )

    return _TABLE.sub(wrap, content)


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    return scrollable_tables(content)


def on_post_page(output: str, page: Any, config: Any) -> str:
    # The theme's search dialog has no name; a screen reader then announces an unnamed dialog.
    return output.replace(_SEARCH_DIALOG, _SEARCH_DIALOG[:-1] + ' aria-label="Search the docs">')


def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    # The static pages (404.html) carry the same dialog.
    return on_post_page(output_content, None, config)
