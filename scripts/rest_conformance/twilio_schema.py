"""Validates REST responses against Twilio's own OpenAPI description (reference/twilio_video_v1_rooms.json).

The response schema is looked up by Twilio's path template, method and status,
its `$ref`s are inlined (with the siblings Twilio puts beside them, such as
`nullable`), and the body is checked with an OpenAPI 3.0 validator (Twilio's
file is 3.0.1, where `nullable: true` admits null). Then every property that
Twilio's schema lists must be present in the body (PROTOCOL.md section 6:
"carries every field it lists"), in the envelope, in `meta`, and in each item.
"""

import copy
import json
import re
from urllib.parse import urlsplit, unquote

from openapi_schema_validator import OAS30Validator

DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


class TwilioSchema:
    def __init__(self, path):
        self.doc = json.load(open(path))
        # The pinned file predates `reconnecting`; newer Twilio versions list it
        # and PROTOCOL.md section 6 allows it, so it is the one addition made here.
        status = self.doc["components"]["schemas"]["room_participant_enum_status"]["enum"]
        if "reconnecting" not in status:
            status.append("reconnecting")
        self.routes = []
        for template, item in self.doc["paths"].items():
            pattern = "^" + re.sub(r"\{[^/}]+\}", "[^/]+", re.escape(template).replace(r"\{", "{").replace(r"\}", "}")) + "$"
            self.routes.append((re.compile(pattern), template, item))

    def _inline(self, node):
        if isinstance(node, dict):
            if "$ref" in node:
                name = node["$ref"].rsplit("/", 1)[1]
                target = self._inline(copy.deepcopy(self.doc["components"]["schemas"][name]))
                siblings = {k: self._inline(v) for k, v in node.items() if k != "$ref"}
                merged = {**siblings, **target}
                if siblings.get("nullable") and "enum" in merged:
                    merged["enum"] = merged["enum"] + [None]
                return merged
            return {k: self._inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [self._inline(v) for v in node]
        return node

    def schema_for(self, method, url, status):
        """(template, schema) of Twilio's response for this request, or None when Twilio has no such route."""
        path = urlsplit(url).path
        for pattern, template, item in self.routes:
            if pattern.match(path):
                op = item.get(method.lower())
                if not op:
                    return template, None
                resp = op["responses"].get(str(status))
                if not resp:
                    return template, None
                schema = resp["content"]["application/json"]["schema"]
                return template, self._inline(schema)
        return None

    @staticmethod
    def missing_properties(schema, value, where="$"):
        """Every property Twilio lists that the body leaves out, as JSON paths.

        Subscribe-rule items (`format: subscribe-rule`) are exempt: Twilio types
        their criteria as plain strings, so a rule leaves out what it does not use.
        """
        missing = []
        if not isinstance(schema, dict) or schema.get("format") == "subscribe-rule":
            return missing
        if isinstance(value, dict) and "properties" in schema:
            for name, sub in schema["properties"].items():
                if name not in value:
                    missing.append(f"{where}.{name}")
                else:
                    missing += TwilioSchema.missing_properties(sub, value[name], f"{where}.{name}")
        if isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                missing += TwilioSchema.missing_properties(schema["items"], item, f"{where}[{i}]")
        return missing

    @staticmethod
    def inexact_dates(schema, value, where="$"):
        """Dates that are not exactly YYYY-MM-DDTHH:MM:SSZ (PROTOCOL.md section 6: Twilio's libraries parse only that)."""
        bad = []
        if not isinstance(schema, dict):
            return bad
        if schema.get("format") == "date-time" and isinstance(value, str) and not DATE.match(value):
            bad.append(f"{where}: {value!r} is not YYYY-MM-DDTHH:MM:SSZ")
        if isinstance(value, dict):
            for name, sub in schema.get("properties", {}).items():
                if name in value:
                    bad += TwilioSchema.inexact_dates(sub, value[name], f"{where}.{name}")
        if isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                bad += TwilioSchema.inexact_dates(schema["items"], item, f"{where}[{i}]")
        return bad

    def check(self, method, url, status, body):
        """A list of problems (empty when the body conforms), or None when Twilio's file has no schema for it."""
        found = self.schema_for(method, url, status)
        if found is None or found[1] is None:
            return None
        template, schema = found
        problems = []
        try:
            value = json.loads(body)
        except ValueError as e:
            return [f"not JSON: {e}"]
        validator = OAS30Validator(schema, format_checker=OAS30Validator.FORMAT_CHECKER)
        for error in sorted(validator.iter_errors(value), key=lambda e: list(e.path)):
            location = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path)
            problems.append(f"{location}: {error.message}")
        problems += [f"{p}: missing (Twilio lists it)" for p in self.missing_properties(schema, value)]
        problems += self.inexact_dates(schema, value)
        return problems


def path_of(url):
    return unquote(urlsplit(url).path)
