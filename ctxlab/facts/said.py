"""The constraints and commitments :class:`~ctxlab.facts.tracker.FactTracker` keeps: each
as said, with the turn it was said in and what revised or fulfilled it."""

from __future__ import annotations

from .entities import MAX_REVISIONS, MAX_STATEMENTS, Role, Said
from .statements import (
    Statement,
    closest,
    find_commitments,
    find_constraints,
    find_done,
    same_promise,
)


class StatementBook:
    """Constraints the customer set and commitments the agent made, with their revisions."""

    turn: int
    statements: list[Said]

    def _statements(self, text: str, role: Role) -> None:
        if role in ("user", "note"):
            for statement in find_constraints(text):
                if not statement.stale:
                    self._say(statement)
        if role in ("assistant", "note"):
            for statement in find_done(text):
                if not statement.stale:
                    for said in self.current_statements("commitment"):
                        if same_promise(said.topic, statement.topic):
                            said.until, said.done = self.turn, True
            for statement in find_commitments(text):
                if not statement.stale:
                    self._say(statement)

    def _say(self, statement: Statement) -> None:
        current = self.current_statements(statement.kind)
        same = [s for s in current if s.text == statement.text]
        if same:
            return
        if statement.kind == "commitment":
            for said in current:
                if said.topic == statement.topic:
                    said.until = self.turn
        elif statement.revises:
            earlier = closest([s for s in current if s.topic == statement.topic],
                              statement.text, lambda s: s.text)
            if earlier is not None:
                earlier.until = self.turn
        self.statements.append(Said(statement.kind, statement.topic, statement.text, self.turn))
        self._bound_statements(statement)

    def _bound_statements(self, statement: Statement) -> None:
        """Keep at most MAX_STATEMENTS of ``statement``'s kind in force (the oldest end) and
        MAX_REVISIONS ended ones of its kind and topic (the oldest are dropped)."""
        in_force = self.current_statements(statement.kind)
        for old in in_force[: max(0, len(in_force) - MAX_STATEMENTS)]:
            old.until = self.turn
        ended = [s for s in self.statements if s.until is not None and s.topic == statement.topic
                 and s.kind == statement.kind]
        if len(ended) > MAX_REVISIONS:
            gone = {id(s) for s in ended[: len(ended) - MAX_REVISIONS]}
            self.statements = [s for s in self.statements if id(s) not in gone]

    def current_statements(self, kind: str) -> list[Said]:
        """Constraints (``kind="constraint"``) or commitments still in force, in order."""
        return [s for s in self.statements if s.kind == kind and s.until is None]

    def revisions(self, said: Said) -> list[Said]:
        """Earlier versions of a current statement (same kind and topic, ended when it was
        said), newest first."""
        return [s for s in reversed(self.statements)
                if s.kind == said.kind and s.topic == said.topic and s.until == said.turn
                and not s.done and s is not said]

    def replacement(self, said: Said) -> Said | None:
        """The statement in force that replaced an ended one (None: none did)."""
        if said.until is None:
            return None
        later = [s for s in self.current_statements(said.kind)
                 if s.topic == said.topic and s.turn == said.until]
        return closest(later, said.text, lambda s: s.text)
