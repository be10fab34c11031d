"""Plain objects completed in one pass. graphql-core completes each field of each object on its
own (a resolve info, a path, the type dispatch: ~5 µs a field), so a lineage of depth 10 (3,600
fields) spent more time there than in Neo4j. An object whose selected fields are all plain
(strawberry's attribute fields: no resolver, arguments or extensions; of scalar, enum or again
plain object types) is completed here by reading its attributes and coercing the leaves.
Anything else goes through graphql-core, and so does any object whose plain completion meets
something unusual (a null where none may be, a value a scalar refuses, a wrong type): it is
then completed again by graphql-core from the start, so results and errors are the same as
without this path (tests/test_plain_completion.py compares both on every benchmark query)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, NamedTuple, TypeAlias

from graphql import (
    GraphQLAbstractType,
    GraphQLField,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    is_abstract_type,
    is_leaf_type,
    is_list_type,
    is_non_null_type,
)
from graphql.execution.collect_fields import FieldDetailsList
from graphql.pyutils import Path, Undefined
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.field import StrawberryField

TYPENAME, LEAF, OBJECT, ABSTRACT = range(4)
# Directives collect_subfields has already applied; any other one leaves the object to
# graphql-core.
APPLIED_DIRECTIVES = frozenset({"skip", "include"})


class NotPlain(Exception):
    """The plain completion met something it leaves to graphql-core."""


class PlainField(NamedTuple):
    """One selected field of a plain object, with what completing its value takes."""

    key: str
    kind: int
    read: Callable[[Any], Any] | None
    non_null: bool
    is_list: bool
    item_non_null: bool
    coerce: Callable[[Any], Any] | None = None
    object_type: GraphQLObjectType | None = None
    plan: Plan | None = None
    abstract_type: GraphQLAbstractType | None = None
    field_def: GraphQLField | None = None
    field_details: FieldDetailsList | None = None


Plan: TypeAlias = tuple[PlainField, ...]


def attribute_reader(field_def: GraphQLField) -> Callable[[Any], Any] | None:
    """How to read a field that strawberry resolves as the source's attribute (it marks the
    resolver of a field without resolver, arguments or extensions); None for any other."""
    if getattr(field_def.resolve, "_is_default", False) is not True:
        return None
    field = (field_def.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    if isinstance(field, StrawberryField) and field.default_resolver is getattr:
        return attrgetter(field.python_name)
    return None  # a schema with its own default resolver: left to graphql-core


def _discard(value: Any) -> None:
    """Close a coroutine that will not be awaited (graphql-core makes its own on the retry)."""
    close = getattr(value, "close", None)
    if callable(close):
        close()


class PlainCompletionContext(StrawberryGraphQLCoreExecutionContext):
    """strawberry's execution context, completing plain objects in one pass."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Keyed like graphql-core's own subfield memo: by type and the identity of the field
        # list, kept alive with the plan so that its id is not reused during the execution.
        self._plans: dict[tuple[GraphQLObjectType, int], tuple[FieldDetailsList,
                                                              Plan | None]] = {}

    def complete_object_value(self, return_type: GraphQLObjectType,
                              field_details_list: FieldDetailsList, info: GraphQLResolveInfo[Any],
                              path: Path, result: Any, position_context: Any) -> Any:
        plan = self._plan(return_type, field_details_list)
        if plan is not None:
            try:
                return self._complete(return_type, plan, result, info, path)
            except Exception:  # graphql-core completes it again, and reports what it finds
                pass
        return super().complete_object_value(return_type, field_details_list, info, path,
                                             result, position_context)

    # -- plans --------------------------------------------------------------------------------

    def _plan(self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
              ) -> Plan | None:
        key = (object_type, id(field_details_list))
        cached = self._plans.get(key)
        if cached is None:
            cached = self._plans[key] = (field_details_list,
                                         self._build_plan(object_type, field_details_list))
        return cached[1]

    def _build_plan(self, object_type: GraphQLObjectType, field_details_list: FieldDetailsList
                    ) -> Plan | None:
        if self.middleware_manager is not None and self.middleware_manager.middlewares:
            return None  # a schema extension that wraps every resolver
        grouped, defer_usages, _ = self.collect_subfields(object_type, field_details_list)
        if defer_usages:
            return None  # @defer (not enabled in vaultkg's schema) is graphql-core's to do
        fields: list[PlainField] = []
        for key, details in grouped.items():
            name = details[0].node.name.value
            field_def = None if name == "__typename" else self.schema.get_field(object_type,
                                                                                 name)
            if field_def is None and name != "__typename":
                continue  # graphql-core leaves it out of the result too
            field = self._plain_field(key, details, field_def)
            if field is None:
                return None
            fields.append(field)
        return tuple(fields)

    def _plain_field(self, key: str, details: FieldDetailsList, field_def: GraphQLField | None
                     ) -> PlainField | None:
        """The plan of one field (`__typename` without `field_def`); None when not plain."""
        for detail in details:
            node = detail.node
            if node.arguments or any(d.name.value not in APPLIED_DIRECTIVES
                                     for d in node.directives or ()):
                return None
        if field_def is None:
            return PlainField(key, TYPENAME, None, True, False, False)
        read = attribute_reader(field_def)
        if read is None:
            return None
        field_type: GraphQLOutputType = field_def.type
        non_null = is_non_null_type(field_type)
        if non_null:
            field_type = field_type.of_type  # type: ignore[union-attr]
        is_list = is_list_type(field_type)
        item_non_null = False
        if is_list:
            field_type = field_type.of_type  # type: ignore[union-attr]
            item_non_null = is_non_null_type(field_type)
            if item_non_null:
                field_type = field_type.of_type  # type: ignore[union-attr]
            if is_list_type(field_type):
                return None
        field = PlainField(key, LEAF, read, non_null, is_list, item_non_null)
        if is_leaf_type(field_type):
            return field._replace(coerce=field_type.coerce_output_value)
        if isinstance(field_type, GraphQLObjectType):
            plan = self._plan(field_type, details)
            if plan is None:
                return None
            return field._replace(kind=OBJECT, object_type=field_type, plan=plan)
        if is_abstract_type(field_type):
            # Each runtime type's plan is made when a value of it comes (of the dozen kinds
            # of pages a lineage shows two or three).
            return field._replace(kind=ABSTRACT, abstract_type=field_type, field_def=field_def,
                                  field_details=details)
        return None

    # -- completion ---------------------------------------------------------------------------

    def _complete(self, object_type: GraphQLObjectType, plan: Plan, source: Any,
                  info: GraphQLResolveInfo[Any], path: Path) -> dict[str, Any]:
        is_type_of = object_type.is_type_of
        if is_type_of is not None:
            matches = is_type_of(source, info)
            if matches is not True:
                _discard(matches)
                raise NotPlain(object_type.name)
        completed: dict[str, Any] = {}
        for field in plan:
            if field.kind == TYPENAME:
                completed[field.key] = object_type.name
                continue
            value = field.read(source)  # type: ignore[misc]
            if value is None or value is Undefined:
                if field.non_null:
                    raise NotPlain(field.key)
                completed[field.key] = None
            elif field.is_list:
                if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__iter__"):
                    raise NotPlain(field.key)
                completed[field.key] = [
                    self._item(object_type, field, item, info, path, index)
                    for index, item in enumerate(value)]
            else:
                completed[field.key] = self._item(object_type, field, value, info, path, None)
        return completed

    def _item(self, parent: GraphQLObjectType, field: PlainField, value: Any,
              info: GraphQLResolveInfo[Any], path: Path, index: int | None) -> Any:
        if value is None or value is Undefined:
            if field.item_non_null or index is None:  # a null field was handled before
                raise NotPlain(field.key)
            return None
        if isinstance(value, Exception):
            raise NotPlain(field.key)
        if field.kind == LEAF:
            coerced = field.coerce(value)  # type: ignore[misc]
            if coerced is None or coerced is Undefined:
                raise NotPlain(field.key)
            return coerced
        field_path = Path(path, field.key, parent.name)
        item_path = field_path if index is None else Path(field_path, index, None)
        if field.kind == OBJECT:
            return self._complete(field.object_type, field.plan, value,  # type: ignore[arg-type]
                                  info, item_path)
        # An interface or union: its runtime type, as graphql-core finds it.
        abstract = field.abstract_type
        assert abstract is not None and field.field_details is not None
        field_info = self.build_resolve_info(field.field_def,  # type: ignore[arg-type]
                                             [d.node for d in field.field_details], parent,
                                             field_path)
        resolve_type = abstract.resolve_type or self.type_resolver
        type_name = resolve_type(value, field_info, abstract)
        if self.is_awaitable(type_name):
            _discard(type_name)
            raise NotPlain(field.key)
        runtime = self.ensure_valid_runtime_type(type_name, abstract, field.field_details,
                                                 field_info, value)
        plan = self._plan(runtime, field.field_details)
        if plan is None:
            raise NotPlain(runtime.name)
        return self._complete(runtime, plan, value, field_info, item_path)
