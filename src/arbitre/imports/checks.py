"""Checking a scene document against the fields the readers use, with pydantic: every
problem with its JSON path (``walls[3].c``) and its value, all at once, as the scenario
loader words them (:mod:`arbitre.problems`). Fields the readers do not use are ignored.
"""

from __future__ import annotations

from typing import Annotated, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from arbitre.errors import Problem, ScenarioError
from arbitre.i18n import T_
from arbitre.problems import kind, problem

#: Largest magnitude of a coordinate read, in the file's own units (cells or pixels).
LIMIT = 1e8

Number = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-LIMIT, le=LIMIT)]
Positive = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0, le=LIMIT)]
NonNegative = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0, le=LIMIT)]


class Doc(BaseModel):
    """A part of a scene file: the fields it needs, the rest ignored."""

    model_config = ConfigDict(extra="ignore")


_D = TypeVar("_D", bound=Doc)


def checked(cls: type[_D], doc: object, source: str | None) -> _D:
    """``doc`` read as ``cls``; a :class:`ScenarioError` listing every problem otherwise."""
    if not isinstance(doc, dict):
        raise ScenarioError(
            [Problem("", T_("a scene must be a JSON object, got {kind}", kind=kind(doc)))],
            source=source,
        )
    try:
        return cls.model_validate(doc)
    except ValidationError as exc:
        raise ScenarioError(
            [_problem(e) for e in exc.errors(include_url=False)], source=source
        ) from None


def _problem(err: ErrorDetails) -> Problem:
    # union members add their class name to the path (grid: number or mapping): leave it out
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p[:1].isupper()))
    return problem(ErrorDetails(**{**err, "loc": loc}))
