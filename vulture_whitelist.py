"""Names vulture cannot see used: a framework calls them, not our code.

Read by the dead-code step of .ci/run (vulture ... vulture_whitelist.py). Each entry says
who uses the name. The games' rules modules register their steps, resolutions and
claimed-effect handlers in tables (``@step``, ``@resolves``, ``@does``, ``@undoes``:
``games.common.Handlers``; BlackPoker's steps mixins ``@step_mixin``), which .ci/run
passes with ``--ignore-decorators``; the BlackPoker simulator's ``choose_*`` and
``targets_*``, called by name, with ``--ignore-names``.
"""

# ruff: noqa: B018
from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# pydantic: model settings and a field every log's header carries (log_format: 1).
_.model_config
_.log_format
# pydantic: @field_validator methods, called by pydantic on validation.
_._distinct_players
_._registered_game
_._read_with_its_game
# pydantic: a @model_validator (the effect operands must be finite).
_._finite_operands
# pydantic: the edition data's fields and @model_validator methods (BlackPoker's schema.py),
# which pydantic reads from the class bodies when it checks the data.
_._fixed_number
_._rank_range
_._when
_.alt_cost
_.bulwark_proof
_.choices_on_resolve
_.from_
_.grants
_.has_target
_.if_
_.immune
_.immune_flag
_.key_card_count
_.labels_ja
_.must_attack
_.needs_empty_stage
_.next_generation
_.not_self
_.originated
_.recommended_formats
_.regenerates
_.same_rank
_.same_suit
_.same_suit_as_key
_.trumps_in
_.untargetable
_.virtual_keys
# importlib.metadata: each game's GamePlugin object, loaded through its entry point in
# the coreflow_judge.games group (pyproject.toml; the toy game's in tests/test_toy_game.py).
_.GAME
_.TOY_GAME
# eventsourcing: the aggregate protocol (collect_events) and the mapper's hook
# (to_stored_event) that the library calls.
_.collect_events
_.to_stored_event
# eventsourcing: the PostgreSQL and SQLite recorder classes named by
# APPLICATION_RECORDER_TOPIC (events/store.py) and the method the library calls to save.
_.ChunkedApplicationRecorder
_.WaitingSQLiteApplicationRecorder
_.insert_events
# typer: commands, registered by @app.command / @fixture_app.command decorators.
_.new_command
_.check_command
_.narrow_command
_.normalize
_.verify
# typer: the app's callback (@app.callback) and its --version option's parameter.
_._options
_.show_version
# Python: cli/main.py gives each typer command the class PlainUsage by assigning
# ``__class__`` (its usage line); Python reads the attribute, no code of ours does.
_.__class__
# pytest: hooks and the Item/File/Node methods pytest calls (the ruling plugin,
# tests/conftest.py), and the unused ``style`` argument of Node.repr_failure.
_.pytest_collect_file
_.pytest_configure
_.pytest_ignore_collect
_.pytest_collection_modifyitems
_.pytest_sessionfinish
_.exitstatus
_.collect
_.runtest
_.reportinfo
_.style
# cli.session.Session.take: the table's commands, found by name (``cmd_`` + the word typed).
_.cmd_help
_.cmd_legal
_.cmd_actions
_.cmd_board
_.cmd_exit
# pytest fixtures asked for by name (``usefixtures``), not called.
_._simulator_defects
# Python: a module's __getattr__ and __dir__ (PEP 562), the lazy names of the package
# coreflow_judge (api/__init__.py).
_.__getattr__
_.__dir__
