"""The audit database's tables: names, column types and one line of meaning per column.

This is the single description of the read model: :mod:`audit.projection` creates the
tables from it and feeds each one through DuckDB's ``read_json`` with these types, and
docs/audit.md documents every column (a test checks that the two agree).
"""

from __future__ import annotations

#: Bump when a table or column changes: an audit file of another version is rebuilt.
SCHEMA_VERSION = 6

#: Column names avoid SQL keywords: the log's ``at`` is ``played_at`` (``at`` is reserved
#: in DuckDB), the event's ``table`` is ``table_no``.

#: The state table: the last store notification taken in and what it was taken from.
STATE_TABLE = "audit_state"
#: What the audit took in of each record: its match, a digest of its stored rows and how
#: many rows that covers (a record edited in the store afterwards no longer matches it).
DIGEST_TABLE = "audit_digests"

Column = tuple[str, str, str]
"""(name, DuckDB type, meaning)."""

TABLES: dict[str, list[Column]] = {
    "matches": [
        ("match_id", "VARCHAR", "the match id of the header"),
        ("record_id", "VARCHAR", "the store's match-record id (UUID)"),
        ("game", "VARCHAR", "blackpoker, duel_masters or i_language"),
        ("rules", "VARCHAR", "the rules edition as the header gives it, e.g. blackpoker/9.0"),
        ("edition", "VARCHAR", "the edition alone, e.g. 9.0"),
        ("format", "VARCHAR", "the format, e.g. lite"),
        ("game_fields", "JSON", "the header's fields its game adds to the core's, as "
         "recorded (BlackPoker 9.0: {\"frame\": \"pack\"}); NULL when it gives none"),
        ("regulation", "VARCHAR", "the regulation, when given"),
        ("players", "VARCHAR[]", "the players in seating order"),
        ("tournament", "VARCHAR", "header event.tournament"),
        ("round", "VARCHAR", "header event.round (as text)"),
        ("table_no", "VARCHAR", "header event.table (as text)"),
        ("first_player", "VARCHAR", "who went first (game_started)"),
        ("lines", "BIGINT", "how many log lines are recorded"),
        ("turns", "BIGINT", "how many turns were started"),
        ("started_at", "TIMESTAMP", "the first `at` of the log (UTC)"),
        ("ended_at", "TIMESTAMP", "the last `at` of the log (UTC)"),
        ("recorded_at", "TIMESTAMP", "when the store took line 1 (UTC)"),
        ("result", "VARCHAR", "the rules' result: win or draw; NULL while undecided"),
        ("winner", "VARCHAR", "the rules' winner"),
        ("reason", "VARCHAR", "the rules' reason, e.g. deck_out"),
        ("recorded_result", "VARCHAR", "the result the game_ended line records"),
        ("recorded_winner", "VARCHAR", "the winner the game_ended line records"),
        ("recorded_reason", "VARCHAR", "the reason the game_ended line records"),
        ("errors", "BIGINT", "findings of severity error, less those that follow from "
         "another (caused_by)"),
        ("consequences", "BIGINT", "error findings that follow from another"),
        ("warnings", "BIGINT", "findings of severity warning"),
        ("judge_error", "VARCHAR", "why the match could not be judged (NULL when it was)"),
    ],
    "events": [
        ("match_id", "VARCHAR", "the match"),
        ("seq", "BIGINT", "the line's seq"),
        ("table_seq", "BIGINT", "the line's number in the log the table wrote, as judge "
         "and board name it; NULL for a line the rules derived when it was recorded "
         "(records made by play, or before coreflow kept it, have none)"),
        ("type", "VARCHAR", "the line type (request, pass, resolve, ...)"),
        ("player", "VARCHAR", "the player the line names: request/pass/roll/turn_started "
         "player, chance_moved to, trigger controller, game_started first_player, "
         "game_ended winner"),
        ("played_at", "TIMESTAMP", "the line's `at` (UTC); NULL when absent or unreadable"),
        ("turn", "BIGINT", "the turn in progress after the line"),
        ("recorded_at", "TIMESTAMP", "when the store took the line (UTC)"),
        ("line", "JSON", "the line exactly as stored"),
    ],
    "requests": [
        ("match_id", "VARCHAR", "the match"),
        ("request", "VARCHAR", "the request id"),
        ("seq", "BIGINT", "the request line; for a triggered request its trigger line, or "
         "the line that triggered it when the log has no trigger line"),
        ("turn", "BIGINT", "the turn it was made in"),
        ("player", "VARCHAR", "its controller (the requester of a direct request)"),
        ("action", "VARCHAR", "the action id"),
        ("speed", "VARCHAR", "instant or normal (the edition's action data)"),
        ("timing", "VARCHAR", "main or quick (the edition's action data)"),
        ("triggered", "BOOLEAN", "made by the rules (trigger) rather than by a player"),
        ("source", "VARCHAR", "what triggered it (triggered requests)"),
        ("key_cards", "VARCHAR[]", "key card refs"),
        ("costs", "JSON", "the request line's costs, [{kind, ref}]"),
        ("targets", "VARCHAR[]", "target refs"),
        ("choices", "JSON", "choices made when requesting"),
        ("stage_depth", "BIGINT", "requests on the stage just before the line that made it"),
        ("had_chance", "BOOLEAN", "the requester held the chance (direct requests; NULL for "
         "triggered ones)"),
        ("status", "VARCHAR", "how it ended: resolved, fizzled, negated, discarded, dropped "
         "(never resolved: the log went on without it) or pending"),
        ("ended_seq", "BIGINT", "the line at which it reached that status"),
        ("resolved_seq", "BIGINT", "its resolve line (resolved or fizzled)"),
        ("negated_by", "VARCHAR", "the request whose resolution negated it"),
        ("played_at", "TIMESTAMP", "`at` of the line that made it (UTC)"),
    ],
    "passes": [
        ("match_id", "VARCHAR", "the match"),
        ("seq", "BIGINT", "the pass line"),
        ("player", "VARCHAR", "who passed"),
        ("played_at", "TIMESTAMP", "`at` of the pass (UTC)"),
        ("turn", "BIGINT", "the turn"),
        ("turn_player", "VARCHAR", "whose turn it was"),
        ("had_chance", "BOOLEAN", "the player held the chance when passing"),
        ("stage_depth", "BIGINT", "requests on the stage when passing"),
        ("top_request", "VARCHAR", "the request on top of the stage when passing"),
    ],
    "chance_moves": [
        ("match_id", "VARCHAR", "the match"),
        ("pos", "BIGINT", "position in the complete log (derived lines included)"),
        ("seq", "BIGINT", "the chance_moved line; for a derived move, the line it followed"),
        ("to_player", "VARCHAR", "the new holder: a player or system"),
        ("recorded", "BOOLEAN", "the log has the line (false: the judge derived it)"),
        ("played_at", "TIMESTAMP", "`at` of the recorded line (UTC)"),
    ],
    "resolutions": [
        ("match_id", "VARCHAR", "the match"),
        ("seq", "BIGINT", "the resolve line"),
        ("request", "VARCHAR", "the request resolved"),
        ("action", "VARCHAR", "its action (NULL when the request is unknown)"),
        ("controller", "VARCHAR", "its controller"),
        ("triggered", "BOOLEAN", "a triggered request"),
        ("result", "VARCHAR", "the result the log records: resolved or fizzled"),
        ("rules_result", "VARCHAR", "the result the rules give (NULL when the engine did "
         "not resolve it)"),
        ("from_stage", "BOOLEAN", "the request was on the stage (normal requests)"),
        ("was_top", "BOOLEAN", "it was the top of the stage (false: resolved out of stage "
         "order; NULL when not from the stage)"),
        ("stage_depth", "BIGINT", "requests on the stage just before the resolve line"),
        ("choices", "JSON", "choices recorded on the resolve line"),
        ("effects", "JSON", "the primitive effects the rules produced"),
        ("claimed_effects", "JSON", "the effects the log claims (NULL when it claims none)"),
        ("request_seq", "BIGINT", "`requests.seq` of the request"),
        ("turn", "BIGINT", "the turn"),
        ("played_at", "TIMESTAMP", "`at` of the resolve line (UTC)"),
    ],
    "triggers": [
        ("match_id", "VARCHAR", "the match"),
        ("request", "VARCHAR", "the triggered request's id"),
        ("seq", "BIGINT", "the trigger line; for a derived one, the line that triggered it"),
        ("action", "VARCHAR", "the triggered action"),
        ("source", "VARCHAR", "the component or request whose condition fired"),
        ("controller", "VARCHAR", "its controller as the rules give it"),
        ("recorded", "BOOLEAN", "the log has the trigger line"),
        ("buffer_order", "BIGINT", "1, 2, ...: the order it entered the buffer in the match "
         "(a trigger line that put no request in the buffer: after all that did)"),
        ("handled_order", "BIGINT", "1, 2, ...: the order it left the buffer (staged, "
         "discarded or resolved); NULL if it never did"),
        ("waiting_before", "BIGINT", "how many triggered requests that entered the buffer "
         "before it were still waiting when it left (0: handled in entry order)"),
        ("handled_as", "VARCHAR", "staged, discarded, resolved or fizzled"),
        ("handled_seq", "BIGINT", "the line that took it out of the buffer"),
        ("status", "VARCHAR", "how it ended (as requests.status)"),
    ],
    "stage": [
        ("match_id", "VARCHAR", "the match"),
        ("seq", "BIGINT", "the line"),
        ("depth", "BIGINT", "requests on the stage after the line"),
        ("top_request", "VARCHAR", "the request on top after the line"),
        ("requests", "VARCHAR[]", "the stage after the line, bottom to top"),
        ("chance", "VARCHAR", "who holds the chance after the line"),
        ("turn", "BIGINT", "the turn"),
    ],
    "findings": [
        ("match_id", "VARCHAR", "the match"),
        ("ord", "BIGINT", "1, 2, ...: the finding's place in the judge's report"),
        ("seq", "BIGINT", "the line it is about"),
        ("table_seq", "BIGINT", "that line's number in the log the table wrote (events."
         "table_seq); NULL when the line was derived or the record kept no numbers"),
        ("code", "VARCHAR", "the finding code, e.g. timing.no-chance"),
        ("severity", "VARCHAR", "error, warning or info"),
        ("rule", "VARCHAR", "the clause it rests on, e.g. core[12]"),
        ("message", "VARCHAR", "the judge's sentence"),
        ("expected", "JSON", "what the rules expected, where it applies"),
        ("actual", "JSON", "what the log has, where it applies"),
        ("game", "VARCHAR", "the match's game"),
        ("rules", "VARCHAR", "the match's rules edition, e.g. blackpoker/6.1"),
        ("edition", "VARCHAR", "the edition alone"),
        ("caused_by_seq", "BIGINT", "the line of the finding this one follows from "
         "(without that line, this one's keeps the rules); NULL for a root"),
        ("caused_by_code", "VARCHAR", "that finding's code; NULL for a root"),
    ],
    "boards": [
        ("match_id", "VARCHAR", "the match"),
        ("turn", "BIGINT", "the turn that started"),
        ("player", "VARCHAR", "its turn player"),
        ("seq", "BIGINT", "the line after which the turn had started"),
        ("board", "JSON", "the board then: per player deck/hand counts, known cards, "
         "graveyard, fog and field (the rules module's board)"),
    ],
}

#: Columns that sort a table's rows into one stable order (tests and exports).
ORDER: dict[str, str] = {
    "matches": "match_id",
    "events": "match_id, seq",
    "requests": "match_id, seq, request",
    "passes": "match_id, seq",
    "chance_moves": "match_id, pos",
    "resolutions": "match_id, seq",
    "triggers": "match_id, buffer_order",
    "stage": "match_id, seq",
    "findings": "match_id, ord",
    "boards": "match_id, turn, seq",
}


def create_statements() -> list[str]:
    """``CREATE TABLE`` for every table of :data:`TABLES` and the state table."""
    out = [f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} (key VARCHAR PRIMARY KEY, value VARCHAR)",
           f"CREATE TABLE IF NOT EXISTS {DIGEST_TABLE} (record_id VARCHAR PRIMARY KEY, "
           "match_id VARCHAR, digest VARCHAR, lines BIGINT)"]
    for name, cols in TABLES.items():
        body = ", ".join(f'"{c}" {t}' for c, t, _ in cols)
        out.append(f"CREATE TABLE IF NOT EXISTS {name} ({body})")
    return out


def json_columns(name: str) -> str:
    """The ``columns=`` struct of ``read_json`` for a table (its names and types)."""
    return "{" + ", ".join(f"'{c}': '{t}'" for c, t, _ in TABLES[name]) + "}"
