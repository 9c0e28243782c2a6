"""The JSON Schemas of protocol/schema checked against the test vectors of protocol/vectors.

Every valid message (messages/valid.jsonl, messages/sync.jsonl, every line of
sequences/*.ndjson) must pass message.schema.json, the entry point that dispatches on
`type`, and the schema of its own type. Every invalid message (messages/invalid.jsonl) must
be rejected, either by the JSON reader (strict RFC 8259 as far as Python's json goes:
no NaN or Infinity literals) or by message.schema.json -- except the vectors listed in
BEYOND_JSON_SCHEMA, each with the reason no schema can reject it. The list is exact: a
vector that the schemas start rejecting must leave it, so that it stays reviewed.

Run by scripts/test in the venv of Tests/Integration/requirements.txt (jsonschema); alone:
`$HOME/.cache/canvas/xmpp-venv/bin/python Tests/Integration/test_schemas.py`."""

import glob
import json
import os
import unittest

import referencing
from jsonschema import Draft202012Validator

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMAS = os.path.join(ROOT, "protocol", "schema")
VECTORS = os.path.join(ROOT, "protocol", "vectors")

SCHEMA_OF_TYPE = {
    "ADD": "add.schema.json",
    "APPEND": "append.schema.json",
    "DELETE": "delete.schema.json",
    "REMOVE_STROKE": "remove_stroke.schema.json",
    "MEGA": "mega.schema.json",
    "SYNC_SUMMARY": "sync.schema.json",
    "SYNC_BUCKETS": "sync.schema.json",
    "SYNC_STROKES": "sync.schema.json",
    "SYNC_WANT": "sync.schema.json",
}

# Invalid vectors that a JSON reader accepts and that JSON Schema cannot tell from valid
# messages, with the rule of protocol/PROTOCOL.md that receivers check instead.
BEYOND_JSON_SCHEMA = {
    "identifier_too_long_in_bytes":
        "§7 maxIdentifierBytes counts bytes of UTF-8; maxLength counts code points "
        "(129 x 'é' is 258 bytes but 129 characters)",
    "offset_batch_beyond_limit":
        "§7 maxPointIndex: offset + len(points) - 1 <= 2^24 relates two fields",
    "sync_buckets_beyond_255":
        "§13.1 first + number of hashes <= 256 relates two fields",
    "nesting_too_deep":
        "§7 maxNestingDepth: 16 levels anywhere, ignored fields included; a schema "
        "cannot constrain the depth of fields it does not name",
    "lone_low_surrogate":
        "§6 step 2 JSON syntax: a lone surrogate escape; Python's json reads it into a "
        "str, so the schema only sees a one-character string",
    "lone_high_surrogate":
        "§6 step 2 JSON syntax: a lone surrogate escape (as lone_low_surrogate)",
    "high_surrogate_then_non_low":
        "§6 step 2 JSON syntax: a high surrogate escape not followed by a low one "
        "(as lone_low_surrogate)",
}

# Invalid messages the vectors do not hold, for what the schemas once accepted: each is
# rejected by the reference implementation (`canvas replay` prints the error shown).
ZERO_HASH = "0" * 16
MORE_INVALID = {
    "delete_end_offset_1e400": (
        '{"type":"DELETE","identifier":"s","start_offset":0,"end_offset":1e400}',
        "DELETE.end_offset: expected a finite number, got a number beyond the range of a double"),
    "mega_segment_end_1e999": (
        '{"type":"MEGA","data":{"s":{"points":[[0,0]],"segments":[{"start":0,"end":1e999}],'
        '"thickness":1,"colour":[0,0,1]}}}',
        "MEGA.data.s.segments[0].end: expected a finite number, got a number beyond the range of a double"),
    "sync_strokes_65537_covers": (
        # 65537 covers of 14 bytes fit in a message of 1 MiB: only the count limit rejects it.
        '{"type":"SYNC_STROKES","data":{"version":1,"node":"n","root":"%s","to":"m","cover":[%s],"strokes":[]}}'
        % (ZERO_HASH, ",".join(["[0,null,null]"] * 65537)),
        "SYNC_STROKES.data.cover: 65537 entries exceed the limit of 65536 per message"),
}


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def reject_constant(name):
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def read_message(text):
    """The message as Python values, or None when it is not JSON."""
    try:
        return json.loads(text, parse_constant=reject_constant)
    except ValueError:
        return None


def load_schemas():
    resources = []
    for path in sorted(glob.glob(os.path.join(SCHEMAS, "*.schema.json"))):
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        resources.append((os.path.basename(path), schema))
    registry = referencing.Registry().with_resources(
        (schema["$id"], referencing.Resource.from_contents(schema)) for _, schema in resources)
    return {name: schema for name, schema in resources}, registry


SCHEMA_FILES, REGISTRY = load_schemas()


def validator(name):
    return Draft202012Validator(SCHEMA_FILES[name], registry=REGISTRY)


def first_error(name, value):
    error = next(iter(validator(name).iter_errors(value)), None)
    return None if error is None else f"{'/'.join(map(str, error.absolute_path))}: {error.message}"


def valid_messages():
    """(where, text) for every message the vectors say is valid."""
    messages = []
    for file in ("valid.jsonl", "sync.jsonl"):
        for vector in read_jsonl(os.path.join(VECTORS, "messages", file)):
            messages.append((f"{file}:{vector['name']}", vector["message"]))
    for path in sorted(glob.glob(os.path.join(VECTORS, "sequences", "*.ndjson"))):
        with open(path, encoding="utf-8", newline="\n") as f:
            for number, line in enumerate(f.read().split("\n"), 1):
                if line.strip(" \t\r"):
                    messages.append((f"sequences/{os.path.basename(path)}:{number}", line))
    return messages


class SchemaFiles(unittest.TestCase):
    def test_every_schema_is_a_valid_draft_2020_12_schema(self):
        self.assertEqual(set(SCHEMA_FILES), {"message.schema.json", *SCHEMA_OF_TYPE.values()})
        for name, schema in SCHEMA_FILES.items():
            with self.subTest(schema=name):
                Draft202012Validator.check_schema(schema)


class ValidVectors(unittest.TestCase):
    def test_every_valid_message_passes_the_message_schema_and_its_type_schema(self):
        messages = valid_messages()
        self.assertGreater(len(messages), 100)
        for where, text in messages:
            with self.subTest(vector=where):
                value = read_message(text)
                self.assertIsNotNone(value, f"{where} is not JSON: {text!r}")
                self.assertIsNone(first_error("message.schema.json", value))
                own = SCHEMA_OF_TYPE.get(value.get("type"))
                if own:
                    self.assertIsNone(first_error(own, value))


class InvalidVectors(unittest.TestCase):
    def test_every_invalid_message_is_rejected_unless_listed_with_a_reason(self):
        vectors = read_jsonl(os.path.join(VECTORS, "messages", "invalid.jsonl"))
        names = {vector["name"] for vector in vectors}
        self.assertEqual(set(BEYOND_JSON_SCHEMA) - names, set(), "listed vectors that no longer exist")
        accepted = set()
        for vector in vectors:
            value = read_message(vector["message"])
            if value is None:
                continue  # rejected by the JSON reader
            if first_error("message.schema.json", value) is None:
                accepted.add(vector["name"])
        with self.subTest("invalid vectors the schemas accept and BEYOND_JSON_SCHEMA does not list"):
            self.assertEqual(sorted(accepted - set(BEYOND_JSON_SCHEMA)), [])
        with self.subTest("vectors in BEYOND_JSON_SCHEMA that the reader or schemas now reject"):
            self.assertEqual(sorted(set(BEYOND_JSON_SCHEMA) - accepted), [])

    def test_more_invalid_messages_are_rejected(self):
        for name, (text, error) in MORE_INVALID.items():
            with self.subTest(message=name, reference_error=error):
                value = read_message(text)
                self.assertIsNotNone(value)
                self.assertIsNotNone(first_error("message.schema.json", value))

    def test_the_type_schema_agrees_with_the_entry_point_on_invalid_messages_of_its_type(self):
        for vector in read_jsonl(os.path.join(VECTORS, "messages", "invalid.jsonl")):
            value = read_message(vector["message"])
            if not isinstance(value, dict) or value.get("type") not in SCHEMA_OF_TYPE:
                continue
            with self.subTest(vector=vector["name"]):
                self.assertEqual(first_error("message.schema.json", value) is None,
                                 first_error(SCHEMA_OF_TYPE[value["type"]], value) is None)


if __name__ == "__main__":
    unittest.main(verbosity=2)
