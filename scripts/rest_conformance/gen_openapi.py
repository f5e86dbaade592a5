#!/usr/bin/env python3
"""Writes openapi.yaml (OpenAPI 3.1) for the admin REST API of PROTOCOL.md section 6.

The resource schemas are Twilio's own property definitions, copied from
../shared/reference/twilio_video_v1_rooms.json (OpenAPI 3.0.1) and converted
to 3.1 (`nullable: true` becomes `type: [T, "null"]`), so that a response that
validates against openapi.yaml also validates against Twilio's file. On top of
Twilio's file, openapi.yaml requires every property Twilio lists (PROTOCOL.md:
"carries every field it lists"), pins dates to `YYYY-MM-DDTHH:MM:SSZ`, adds
`reconnecting` to the participant status, and describes the Vroom-only routes
(Messages, MessageSubscriptions, /Stats, /healthz, /readyz, /metrics). Twilio's
Network Traversal route (POST /2010-04-01/Accounts/{AccountSid}/Tokens.json,
PROTOCOL.md section 9) takes its schema from docs/reference/twilio_api_v2010_tokens.json
(Twilio's API v2010 file, extracted in this repository), converted the same way.

Usage: gen_openapi.py TWILIO_JSON OUT_YAML
rest-conformance.sh runs it into a temporary file and fails when the committed
openapi.yaml differs, so edit this script, not the YAML.
"""

import copy
import json
import os
import sys

import yaml

DATE_PATTERN = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"
RFC2822_PATTERN = r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d \+0000$"
TOKENS_REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "reference", "twilio_api_v2010_tokens.json")

TWILIO = {
    "Room": "video.v1.room",
    "Participant": "video.v1.room.room_participant",
    "PublishedTrack": "video.v1.room.room_participant.room_participant_published_track",
    "SubscribedTrack": "video.v1.room.room_participant.room_participant_subscribed_track",
    "SubscribeRules": "video.v1.room.room_participant.room_participant_subscribe_rule",
}

ENUMS = {
    "room_enum_room_status": "RoomStatus",
    "room_enum_room_type": "RoomType",
    "room_enum_video_codec": "VideoCodec",
    "room_participant_enum_status": "ParticipantStatus",
    "room_participant_published_track_enum_kind": "TrackKind",
    "room_participant_subscribed_track_enum_kind": "TrackKind",
}


def convert(prop, twilio_schemas):
    """One Twilio 3.0 property definition as 3.1: refs resolved to our enums, nullable as a type union."""
    prop = copy.deepcopy(prop)
    nullable = prop.pop("nullable", False)
    if "$ref" in prop:
        target = prop.pop("$ref").rsplit("/", 1)[1]
        prop.pop("type", None)
        ref = {"$ref": f"#/components/schemas/{ENUMS[target]}"}
        if nullable:
            return {"anyOf": [ref, {"type": "null"}], **prop}
        return {**ref, **prop}
    if prop.get("type") == "array" and "$ref" in prop.get("items", {}):
        prop["items"] = convert(prop["items"], twilio_schemas)
    if prop.get("format") == "date-time":
        prop["pattern"] = DATE_PATTERN
    if prop.get("format") == "date-time-rfc-2822":
        prop["pattern"] = RFC2822_PATTERN
    if prop.get("format") == "uri-map":
        # uri-map is Twilio's own format name; 3.1 tools ignore unknown formats,
        # the value is an object of absolute URLs.
        prop["additionalProperties"] = {"type": "string", "format": "uri"}
    if "enum" in prop and nullable:
        prop["enum"] = prop["enum"] + [None]
    if nullable:
        prop["type"] = [prop["type"], "null"]
    return prop


def resource(twilio_schemas, name, description, extra_required_links=None):
    source = twilio_schemas[TWILIO[name]]
    props = {k: convert(v, twilio_schemas) for k, v in source["properties"].items()}
    if extra_required_links:
        links = props["links"]
        links["properties"] = {k: {"type": "string", "format": "uri"} for k in extra_required_links}
        links["required"] = list(extra_required_links)
    return {
        "type": "object",
        "description": description,
        "required": list(source["properties"].keys()),
        "properties": props,
    }


def error_response(description):
    return {"description": description, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def json_response(description, schema_name):
    return {"description": description, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_name}"}}}}


def form_and_json(schema_name, json_schema_name=None):
    return {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {"schema": {"$ref": f"#/components/schemas/{schema_name}"}},
            "application/json": {"schema": {"$ref": f"#/components/schemas/{json_schema_name or schema_name}"}},
        },
    }


def path_param(name, description):
    return {"name": name, "in": "path", "required": True, "description": description, "schema": {"type": "string", "minLength": 1}}


ROOM = path_param("RoomSid", "The room's SID (RM…), or its unique name: the in-progress room of that name, else the most recently completed one. Percent-decoded.")
PARTICIPANT = path_param("ParticipantSid", "The participant's SID (PA…), or its identity (its current session). Percent-decoded.")
TRACK = path_param("TrackSid", "The track's SID (MT…).")
PAGING = [
    {"name": "PageSize", "in": "query", "description": "Items per page (default 50).", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}},
    {"name": "Page", "in": "query", "description": "Page number, from 0.", "schema": {"type": "integer", "minimum": 0}},
]
DATE_QUERY = {"type": "string", "format": "date-time", "pattern": DATE_PATTERN}


def errors(*statuses):
    texts = {
        "400": "Validation failed: a 531xx, 532xx or 533xx code (PROTOCOL.md section 4).",
        "401": "Missing or wrong HTTP Basic credentials: code 20003.",
        "404": "Unknown room (53106), participant (53204) or track.",
        "409": "A unique name that is in progress (53113 RoomExists), or a participant that is not connected.",
        "413": "Message content over the limit (PROTOCOL.md 3.5, payload-too-large).",
        "429": "Message rate over the limit (PROTOCOL.md 3.5, rate-limited).",
    }
    return {s: error_response(texts[s]) for s in statuses}


def operation(op_id, summary, responses, parameters=None, body=None, tag="Rooms", security=True):
    op = {"operationId": op_id, "summary": summary, "tags": [tag]}
    if parameters:
        op["parameters"] = parameters
    if body:
        op["requestBody"] = body
    op["responses"] = responses
    if not security:
        op["security"] = [{}]
    return op


def list_schema(key, item):
    return {
        "type": "object",
        "required": [key, "meta"],
        "properties": {
            key: {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}},
            "meta": {
                "allOf": [{"$ref": "#/components/schemas/PageMeta"}],
                "properties": {"key": {"const": key}},
            },
        },
    }


def build(twilio):
    ts = twilio["components"]["schemas"]
    schemas = {
        "RoomStatus": copy.deepcopy(ts["room_enum_room_status"]),
        "RoomType": copy.deepcopy(ts["room_enum_room_type"]),
        "VideoCodec": copy.deepcopy(ts["room_enum_video_codec"]),
        "ParticipantStatus": {
            "type": "string",
            "enum": ["connected", "reconnecting", "disconnected"],
            "description": "Twilio's values plus `reconnecting` (newer Twilio versions have it; PROTOCOL.md section 6).",
        },
        "TrackKind": copy.deepcopy(ts["room_participant_published_track_enum_kind"]),
        "Room": resource(ts, "Room", "A room (Twilio's video.v1.room). `type` is `group`; `account_sid` is the configured AC… SID.", ["participants"]),
        "Participant": resource(ts, "Participant", "A participant session (Twilio's room_participant).", ["published_tracks", "subscribed_tracks", "subscribe_rules"]),
        "PublishedTrack": resource(ts, "PublishedTrack", "A publication (Twilio's room_participant_published_track)."),
        "SubscribedTrack": resource(ts, "SubscribedTrack", "A track the participant receives now (Twilio's room_participant_subscribed_track)."),
        "SubscribeRules": resource(ts, "SubscribeRules", "A participant's subscribe rules (Twilio's room_participant_subscribe_rule)."),
    }
    # Twilio's rule items declare plain (non-null) strings: criteria a rule does
    # not use are left out rather than sent as null, so Twilio's file validates.
    rule = schemas["SubscribeRules"]["properties"]["rules"]["items"]
    rule["required"] = ["type"]
    rule["properties"]["type"]["enum"] = ["include", "exclude"]
    rule["properties"]["kind"]["enum"] = ["audio", "video", "data"]
    schemas.update({
        "PageMeta": {
            "type": "object",
            "description": "Twilio's list metadata. Page URLs are absolute and keep the filters.",
            "required": ["page", "page_size", "first_page_url", "previous_page_url", "next_page_url", "url", "key"],
            "properties": {
                "page": {"type": "integer", "minimum": 0},
                "page_size": {"type": "integer", "minimum": 1},
                "first_page_url": {"type": "string", "format": "uri"},
                "previous_page_url": {"type": ["string", "null"], "format": "uri"},
                "next_page_url": {"type": ["string", "null"], "format": "uri"},
                "url": {"type": "string", "format": "uri"},
                "key": {"type": "string"},
            },
        },
        "RoomList": list_schema("rooms", "Room"),
        "ParticipantList": list_schema("participants", "Participant"),
        "PublishedTrackList": list_schema("published_tracks", "PublishedTrack"),
        "SubscribedTrackList": list_schema("subscribed_tracks", "SubscribedTrack"),
        "Error": {
            "type": "object",
            "description": "Twilio's error body, e.g. {\"code\":53106,\"message\":\"Room not found\",\"status\":404}.",
            "required": ["code", "message", "status"],
            "properties": {
                "code": {"type": "integer"},
                "message": {"type": "string"},
                "status": {"type": "integer", "minimum": 400, "maximum": 599},
                "more_info": {"type": "string", "format": "uri"},
            },
        },
        "CreateRoomRequest": {
            "type": "object",
            "properties": {
                "UniqueName": {"type": "string", "description": "Unique among in-progress rooms; 53100-53102 when invalid; default the room SID."},
                "MaxParticipants": {"type": "integer", "description": "Default 50; at most the server's rooms.maxParticipantsLimit (53107 otherwise)."},
                "EmptyRoomTimeout": {"type": "integer", "description": "Minutes, 1-60, default 5 (53109 otherwise)."},
                "UnusedRoomTimeout": {"type": "integer", "description": "Minutes, 1-60, default 5 (53109 otherwise)."},
                "StatusCallback": {"type": "string", "format": "uri", "description": "URL of the signed status callbacks (PROTOCOL.md section 6)."},
                "StatusCallbackMethod": {"type": "string", "enum": ["GET", "POST"], "description": "Default POST."},
                "Type": {"$ref": "#/components/schemas/RoomType", "description": "Accepted for Twilio compatibility; rooms are always `group`."},
            },
        },
        "UpdateRoomRequest": {
            "type": "object",
            "required": ["Status"],
            "properties": {"Status": {"$ref": "#/components/schemas/RoomStatus", "description": "Only `completed` is accepted (53112 otherwise, and on an ended room)."}},
        },
        "UpdateParticipantRequest": {
            "type": "object",
            "required": ["Status"],
            "properties": {"Status": {"$ref": "#/components/schemas/ParticipantStatus", "description": "Only `disconnected` is accepted: the participant gets `disconnected` 53216."}},
        },
        "UpdateSubscribeRulesRequest": {
            "type": "object",
            "required": ["Rules"],
            "properties": {"Rules": {"type": "string", "description": "A JSON-encoded array of rules as in PROTOCOL.md 3.4, e.g. [{\"type\":\"include\",\"all\":true}]."}},
        },
        "UpdateSubscribeRulesJSONRequest": {
            "type": "object",
            "required": ["Rules"],
            "properties": {"Rules": {
                "description": "The rules, as a JSON-encoded string (as in the form) or as the array itself.",
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "object"}}],
            }},
        },
        "SendMessageRequest": {
            "type": "object",
            "required": ["Content"],
            "properties": {
                "Content": {"type": "string", "description": "At most 10,240 UTF-8 bytes; must parse as ContentType says."},
                "ContentType": {"type": "string", "enum": ["application/json"], "description": "Default application/json, the only content type."},
            },
        },
        "Message": {
            "type": "object",
            "description": "The message sent (PROTOCOL.md 3.5); the participant receives it as `message`.",
            "required": ["sid"],
            "properties": {
                "sid": {"type": "string", "pattern": "^ME[0-9a-f]{32}$"},
                "room_sid": {"type": "string", "pattern": "^RM[0-9a-f]{32}$"},
                "participant_sid": {"type": "string", "pattern": "^PA[0-9a-f]{32}$"},
                "date_created": {"type": "string", "format": "date-time", "pattern": DATE_PATTERN},
            },
        },
        "MessageSubscriptionRequest": {
            "type": "object",
            "required": ["Callback"],
            "properties": {"Callback": {"type": "string", "format": "uri", "description": "Receives the participant's messages: POST, JSON {ContentType, Content, SequenceNumber, ParticipantSid, RoomSid, Timestamp (RFC 2822), Sid}, signed with X-Vroom-Signature."}},
        },
        "MessageSubscription": {
            "type": "object",
            "properties": {
                "room_sid": {"type": "string", "pattern": "^RM[0-9a-f]{32}$"},
                "participant_sid": {"type": "string", "pattern": "^PA[0-9a-f]{32}$"},
                "callback": {"type": "string", "format": "uri"},
            },
        },
        "RoomStats": {
            "type": "object",
            "description": "A room's live media (Vroom's own resource; Twilio has none): per participant its network quality and per track what the server receives (published) and sends (subscribed). Rates are over about the last second. A room that ended has no participants.",
            "required": ["room_sid", "account_sid", "unique_name", "status", "date_generated", "url", "participants"],
            "properties": {
                "room_sid": {"type": "string", "pattern": "^RM[0-9a-f]{32}$"},
                "account_sid": {"type": "string", "pattern": "^AC[0-9a-fA-F]{32}$"},
                "unique_name": {"type": "string"},
                "status": {"$ref": "#/components/schemas/RoomStatus"},
                "date_generated": {"type": "string", "format": "date-time", "pattern": DATE_PATTERN},
                "url": {"type": "string", "format": "uri"},
                "participants": {"type": "array", "items": {"$ref": "#/components/schemas/ParticipantStats"}},
            },
        },
        "ParticipantStats": {
            "type": "object",
            "required": ["participant_sid", "identity", "status", "network_quality", "round_trip_time_ms", "available_outgoing_bitrate", "published_tracks", "subscribed_tracks"],
            "properties": {
                "participant_sid": {"type": "string", "pattern": "^PA[0-9a-f]{32}$"},
                "identity": {"type": "string"},
                "status": {"$ref": "#/components/schemas/ParticipantStatus"},
                "network_quality": {"anyOf": [{"$ref": "#/components/schemas/NetworkQualityStats"}, {"type": "null"}], "description": "Null before the first sample (one a second)."},
                "round_trip_time_ms": {"type": ["number", "null"], "minimum": 0, "description": "From the subscriber connection's receiver reports (RFC 3550 LSR/DLSR)."},
                "available_outgoing_bitrate": {"type": ["integer", "null"], "minimum": 0, "description": "The server's downlink estimate for the subscriber connection, bits per second (PROTOCOL.md section 7); null before the subscriber's first transport-cc feedback or REMB."},
                "published_tracks": {"type": "array", "items": {"$ref": "#/components/schemas/PublishedTrackStats"}},
                "subscribed_tracks": {"type": "array", "items": {"$ref": "#/components/schemas/SubscribedTrackStats"}},
            },
        },
        "NetworkQualityStats": {
            "type": "object",
            "required": ["level", "warnings", "mos", "packet_loss", "jitter_ms", "round_trip_time_ms"],
            "properties": {
                "level": {"type": "integer", "minimum": 0, "maximum": 5},
                "warnings": {"type": "array", "items": {"type": "string", "enum": ["high-jitter", "high-rtt", "high-packet-loss", "low-mos"]}},
                "mos": {"type": ["number", "null"], "minimum": 1, "maximum": 5},
                "packet_loss": {"type": ["number", "null"], "minimum": 0, "maximum": 1, "description": "The newest sample's loss fraction, the worse direction."},
                "jitter_ms": {"type": ["number", "null"], "minimum": 0},
                "round_trip_time_ms": {"type": ["number", "null"], "minimum": 0},
            },
        },
        "PublishedTrackStats": {
            "type": "object",
            "description": "What the server receives of a published track.",
            "required": ["track_sid", "name", "kind", "enabled", "ssrc", "packets_received", "bytes_received", "bitrate_bps", "packets_lost", "fraction_lost", "jitter_ms", "nacks_sent", "plis_sent", "keyframes_received"],
            "properties": {
                "track_sid": {"type": "string", "pattern": "^MT[0-9a-f]{32}$"},
                "name": {"type": ["string", "null"]},
                "kind": {"$ref": "#/components/schemas/TrackKind"},
                "enabled": {"type": "boolean", "description": "Forwarded now (enabled and not interrupted)."},
                "ssrc": {"type": ["integer", "null"], "minimum": 0, "maximum": 4294967295},
                "packets_received": {"type": "integer", "minimum": 0},
                "bytes_received": {"type": "integer", "minimum": 0},
                "bitrate_bps": {"type": ["integer", "null"], "minimum": 0, "description": "Null until the first second is measured."},
                "packets_lost": {"type": "integer", "description": "Cumulative, RFC 3550 A.3 (retransmissions count as received)."},
                "fraction_lost": {"type": "number", "minimum": 0, "maximum": 1, "description": "In the last receiver-report interval (about 1 s)."},
                "jitter_ms": {"type": ["number", "null"], "minimum": 0},
                "nacks_sent": {"type": "integer", "minimum": 0},
                "plis_sent": {"type": "integer", "minimum": 0},
                "keyframes_received": {"type": "integer", "minimum": 0},
            },
        },
        "SubscribedTrackStats": {
            "type": "object",
            "description": "What the server sends of a track to the subscribing participant, and what its receiver reports say (null before the first).",
            "required": ["track_sid", "publisher_sid", "name", "kind", "ssrc", "packets_sent", "bytes_sent", "bitrate_bps", "packets_lost", "fraction_lost", "jitter_ms", "round_trip_time_ms", "nacks_received", "retransmissions", "plis_received", "firs_received", "layer", "switched_off", "switch_off_reason"],
            "properties": {
                "track_sid": {"type": "string", "pattern": "^MT[0-9a-f]{32}$"},
                "publisher_sid": {"type": ["string", "null"], "pattern": "^PA[0-9a-f]{32}$"},
                "name": {"type": ["string", "null"]},
                "kind": {"$ref": "#/components/schemas/TrackKind"},
                "ssrc": {"type": "integer", "minimum": 0, "maximum": 4294967295},
                "packets_sent": {"type": "integer", "minimum": 0, "description": "Retransmissions excluded."},
                "bytes_sent": {"type": "integer", "minimum": 0},
                "bitrate_bps": {"type": ["integer", "null"], "minimum": 0},
                "packets_lost": {"type": ["integer", "null"]},
                "fraction_lost": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
                "jitter_ms": {"type": ["number", "null"], "minimum": 0},
                "round_trip_time_ms": {"type": ["number", "null"], "minimum": 0},
                "nacks_received": {"type": "integer", "minimum": 0, "description": "Sequence numbers the subscriber asked for."},
                "retransmissions": {"type": "integer", "minimum": 0},
                "plis_received": {"type": "integer", "minimum": 0},
                "firs_received": {"type": "integer", "minimum": 0},
                "layer": {
                    "type": ["object", "null"],
                    "description": "The layer forwarded now (PROTOCOL.md section 7); null while switched off or before the first packet.",
                    "required": ["rid", "spatial_layer", "temporal_layer"],
                    "properties": {
                        "rid": {"type": ["string", "null"], "description": "The simulcast layer's RID; null for a track published without simulcast."},
                        "spatial_layer": {"type": "integer", "minimum": 0, "description": "0 = the lowest simulcast layer."},
                        "temporal_layer": {"type": ["integer", "null"], "minimum": 0, "description": "The highest VP8 temporal layer forwarded; null when the stream has none."},
                    },
                },
                "switched_off": {"type": "boolean"},
                "switch_off_reason": {"type": ["string", "null"], "enum": ["network-congestion", "max-bandwidth-reached", "disabled-by-subscriber", "disabled-by-publisher", None]},
            },
        },
        "Health": {
            "type": "object",
            "required": ["status", "rtcPorts"],
            "properties": {
                "status": {"type": "string", "enum": ["ok"]},
                "rtcPorts": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 65535}, "description": "The UDP ports of the media workers (useful with --rtc-port 0)."},
            },
        },
        "Token": token_schema(),
        "TokenRequest": {
            "type": "object",
            "properties": {
                "Ttl": {"type": "integer", "minimum": 1, "description": "Lifetime of the credentials in seconds (default turn.ttl, 86400; at most the larger of turn.ttl and 86400)."},
            },
        },
        "Readiness": {
            "type": "object",
            "required": ["status"],
            "properties": {
                "status": {"type": "string", "enum": ["ok", "draining", "full"]},
            },
        },
    })

    rooms = "/v1/Rooms"
    room = rooms + "/{RoomSid}"
    participants = room + "/Participants"
    participant = participants + "/{ParticipantSid}"
    paths = {
        rooms: {
            "get": operation("ListRoom", "List rooms, newest first.", {
                "200": json_response("A page of rooms.", "RoomList"), **errors("400", "401")},
                parameters=[
                    {"name": "Status", "in": "query", "schema": {"$ref": "#/components/schemas/RoomStatus"}},
                    {"name": "UniqueName", "in": "query", "schema": {"type": "string"}},
                    {"name": "DateCreatedAfter", "in": "query", "schema": DATE_QUERY},
                    {"name": "DateCreatedBefore", "in": "query", "schema": DATE_QUERY},
                ] + PAGING),
            "post": operation("CreateRoom", "Create a room.", {
                "201": {**json_response("The new room, in progress.", "Room"), "links": {
                    "FetchRoom": {"operationId": "FetchRoom", "parameters": {"RoomSid": "$response.body#/sid"}},
                    "UpdateRoom": {"operationId": "UpdateRoom", "parameters": {"RoomSid": "$response.body#/sid"}},
                    "ListRoomParticipant": {"operationId": "ListRoomParticipant", "parameters": {"RoomSid": "$response.body#/sid"}},
                }},
                **errors("400", "401", "409")},
                body=form_and_json("CreateRoomRequest")),
        },
        room: {
            "parameters": [ROOM],
            "get": operation("FetchRoom", "Fetch a room, in progress or ended (history is kept).", {
                "200": json_response("The room.", "Room"), **errors("401", "404")}),
            "post": operation("UpdateRoom", "End a room: Status=completed; every participant gets `disconnected` 53118.", {
                "202": json_response("The room, completed.", "Room"), **errors("400", "401", "404")},
                body=form_and_json("UpdateRoomRequest")),
        },
        room + "/Stats": {
            "parameters": [ROOM],
            "get": operation("FetchRoomStats", "A room's live media per participant and track: packets, bytes, bitrate, loss, jitter, RTT, NACKs, PLIs, network quality.", {
                "200": json_response("The room's figures now.", "RoomStats"), **errors("401", "404")}, tag="Stats"),
        },
        participants: {
            "parameters": [ROOM],
            "get": operation("ListRoomParticipant", "List a room's participants; for an in-progress room Status defaults to connected.", {
                "200": json_response("A page of participants.", "ParticipantList"), **errors("400", "401", "404")},
                parameters=[
                    {"name": "Status", "in": "query", "schema": {"$ref": "#/components/schemas/ParticipantStatus"}},
                    {"name": "Identity", "in": "query", "schema": {"type": "string"}},
                ] + PAGING, tag="Participants"),
        },
        participant: {
            "parameters": [ROOM, PARTICIPANT],
            "get": operation("FetchRoomParticipant", "Fetch a participant.", {
                "200": json_response("The participant.", "Participant"), **errors("401", "404")}, tag="Participants"),
            "post": operation("UpdateRoomParticipant", "Remove a participant: Status=disconnected; it gets `disconnected` 53216 (ParticipantRemoved).", {
                "202": json_response("The participant, disconnected.", "Participant"), **errors("400", "401", "404")},
                body=form_and_json("UpdateParticipantRequest"), tag="Participants"),
        },
        participant + "/PublishedTracks": {
            "parameters": [ROOM, PARTICIPANT],
            "get": operation("ListRoomParticipantPublishedTrack", "List a participant's publications.", {
                "200": json_response("A page of publications.", "PublishedTrackList"), **errors("400", "401", "404")},
                parameters=PAGING, tag="Tracks"),
        },
        participant + "/PublishedTracks/{TrackSid}": {
            "parameters": [ROOM, PARTICIPANT, TRACK],
            "get": operation("FetchRoomParticipantPublishedTrack", "Fetch a publication.", {
                "200": json_response("The publication.", "PublishedTrack"), **errors("401", "404")}, tag="Tracks"),
        },
        participant + "/SubscribedTracks": {
            "parameters": [ROOM, PARTICIPANT],
            "get": operation("ListRoomParticipantSubscribedTrack", "List the tracks a participant receives now.", {
                "200": json_response("A page of subscribed tracks.", "SubscribedTrackList"), **errors("400", "401", "404")},
                parameters=PAGING, tag="Tracks"),
        },
        participant + "/SubscribedTracks/{TrackSid}": {
            "parameters": [ROOM, PARTICIPANT, TRACK],
            "get": operation("FetchRoomParticipantSubscribedTrack", "Fetch a subscribed track.", {
                "200": json_response("The subscribed track.", "SubscribedTrack"), **errors("401", "404")}, tag="Tracks"),
        },
        participant + "/SubscribeRules": {
            "parameters": [ROOM, PARTICIPANT],
            "get": operation("FetchRoomParticipantSubscribeRule", "Read a participant's subscribe rules.", {
                "200": json_response("The rules.", "SubscribeRules"), **errors("401", "404")}, tag="Subscriptions"),
            "post": operation("UpdateRoomParticipantSubscribeRule", "Replace a participant's subscribe rules (PROTOCOL.md 3.4).", {
                "200": json_response("The new rules.", "SubscribeRules"), **errors("400", "401", "404")},
                body=form_and_json("UpdateSubscribeRulesRequest", "UpdateSubscribeRulesJSONRequest"), tag="Subscriptions"),
        },
        participant + "/Messages": {
            "parameters": [ROOM, PARTICIPANT],
            "post": operation("CreateRoomParticipantMessage", "Send a server-to-participant message; same limits as PROTOCOL.md 3.5.", {
                "201": json_response("The message was sent.", "Message"), **errors("400", "401", "404", "409", "413", "429")},
                body=form_and_json("SendMessageRequest"), tag="Messages"),
        },
        participant + "/MessageSubscriptions": {
            "parameters": [ROOM, PARTICIPANT],
            "post": operation("CreateRoomParticipantMessageSubscription", "Subscribe a webhook to a participant's messages.", {
                "201": json_response("The subscription.", "MessageSubscription"), **errors("400", "401", "404")},
                body=form_and_json("MessageSubscriptionRequest"), tag="Messages"),
        },
        "/2010-04-01/Accounts/{AccountSid}/Tokens.json": {
            "post": operation("CreateToken", (
                "Twilio's Network Traversal Service: TURN credentials for the configured TURN server (PROTOCOL.md section 9). "
                "Without TURN configured: ice_servers is empty, username and password null. The AccountSid is not checked."),
                {"201": json_response("The token.", "Token"),
                 "400": error_response("Ttl is not an integer in 1...max(turn.ttl, 86400): code 20001."), **errors("401")},
                parameters=[path_param("AccountSid", "Any account SID (Twilio's helper libraries put the account or the API key here).")],
                body={"required": False, "content": {
                    "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/TokenRequest"}},
                    "application/json": {"schema": {"$ref": "#/components/schemas/TokenRequest"}}}},
                tag="NetworkTraversal"),
        },
        "/metrics": {
            "get": {
                "operationId": "GetMetrics",
                "summary": "Prometheus metrics (text format 0.0.4); names in DESIGN.md. No auth unless the server runs with --metrics-auth (then the API key and secret, HTTP Basic).",
                "tags": ["Operations"],
                "security": [{}, {"basicAuth": []}],
                "responses": {
                    "200": {"description": "The metrics.", "content": {"text/plain": {"schema": {"type": "string"}}}},
                    **errors("401"),
                },
            },
        },
        "/healthz": {
            "get": {
                "operationId": "GetHealth",
                "summary": "Liveness: 200 while the process serves, also when it is full or draining.",
                "tags": ["Operations"],
                "security": [{}],
                "responses": {
                    "200": json_response("The process serves.", "Health"),
                },
            },
        },
        "/readyz": {
            "get": {
                "operationId": "GetReadiness",
                "summary": "Readiness: 200 when the node takes new participants, 503 when it is draining or full.",
                "tags": ["Operations"],
                "security": [{}],
                "responses": {
                    "200": json_response("The node takes new participants.", "Readiness"),
                    "503": json_response("The node is draining (SIGTERM) or full (rooms.maxParticipantsPerNode).", "Readiness"),
                },
            },
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Vroom admin REST API",
            "version": "1.0.0",
            "description": (
                "The admin REST API of PROTOCOL.md section 6, in the shape of Twilio's Video v1 Rooms API. "
                "Request bodies are form-encoded with Twilio's PascalCase names (JSON with the same names is accepted too); "
                "responses are JSON in snake_case. Resource schemas copy Twilio's property definitions "
                "(reference/twilio_video_v1_rooms.json) and require every one of them. "
                "Generated by scripts/rest_conformance/gen_openapi.py: edit that, not this file."
            ),
            "license": {"name": "Apache 2.0 (resource schemas from Twilio's OpenAPI description)", "identifier": "Apache-2.0"},
        },
        "servers": [{"url": "http://127.0.0.1:7880", "description": "vroom-server --dev"}],
        "security": [{"basicAuth": []}],
        "tags": [{"name": t} for t in ["Rooms", "Participants", "Tracks", "Subscriptions", "Messages", "Stats", "NetworkTraversal", "Operations"]],
        "paths": paths,
        "components": {
            "securitySchemes": {"basicAuth": {"type": "http", "scheme": "basic", "description": "API key as the user name, API secret as the password (devkey / devsecret with --dev)."}},
            "schemas": schemas,
        },
    }


def token_schema():
    """Twilio's api.v2010.account.token as 3.1, every property required, each ice server's four strings too."""
    source = json.load(open(TOKENS_REFERENCE))["components"]["schemas"]["api.v2010.account.token"]
    props = {k: convert(v, {}) for k, v in source["properties"].items()}
    servers = props["ice_servers"]["items"]
    servers.pop("format", None)
    servers.pop("x-class-extra-annotation", None)
    servers["required"] = list(servers["properties"].keys())
    for name in ["x-field-extra-annotation", "x-getter-extra-annotation"]:
        props["ice_servers"].pop(name, None)
    return {
        "type": "object",
        "description": "Twilio's Token resource (API v2010): dates RFC 2822, ttl a string, one URL per ICE server.",
        "required": list(source["properties"].keys()),
        "properties": props,
    }


def main():
    twilio = json.load(open(sys.argv[1]))
    spec = build(twilio)
    with open(sys.argv[2], "w") as out:
        out.write("# Generated by scripts/rest_conformance/gen_openapi.py from Twilio's\n")
        out.write("# reference/twilio_video_v1_rooms.json; edit the generator, not this file.\n")
        yaml.safe_dump(spec, out, sort_keys=False, width=120, allow_unicode=True)


if __name__ == "__main__":
    main()
