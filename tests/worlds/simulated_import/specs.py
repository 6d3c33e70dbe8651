"""OpenAPI documents built in the tests: a real-world-sized one (``RESOURCES`` resources of five operations each,
references nested four deep, a reference cycle, 3.0's own keywords) and a small one to mutate."""

from __future__ import annotations

from typing import Any

RESOURCES = 24
"""Resources of the large document: 5 operations each (list, create, read, replace, delete) + 1 search = 121."""


def large_spec(resources: int = RESOURCES) -> dict[str, Any]:
    paths: dict[str, Any] = {
        "/search": {
            "post": {
                "operationId": "search.everything",  # sanitised to search_everything
                "x-squall-writes": False,
                "requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "string"}}}},
                "responses": {
                    "200": {"description": "hits", "content": {"application/json": {"schema": {"type": "array"}}}}
                },
            }
        }
    }
    schemas: dict[str, Any] = {
        "Coordinate": {"type": "number", "minimum": -180, "maximum": 180, "exclusiveMinimum": True},
        "Geo": {
            "type": "object",
            "properties": {
                "lat": {"$ref": "#/components/schemas/Coordinate"},
                "lon": {"$ref": "#/components/schemas/Coordinate"},
            },
        },
        "Address": {
            "type": "object",
            "required": ["city"],
            "properties": {"city": {"type": "string"}, "geo": {"$ref": "#/components/schemas/Geo"}},
        },
        "Money": {
            "type": "object",
            "properties": {"amount": {"type": "number"}, "currency": {"type": "string", "enum": ["EUR", "USD"]}},
        },
        "Tag": {"type": "string", "nullable": True, "example": "urgent"},
    }
    for index in range(resources):
        kind = f"Item{index}"
        schemas[f"New{kind}"] = {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "description": f"Name of the {kind}"},
                "price": {"$ref": "#/components/schemas/Money"},
                "address": {"$ref": "#/components/schemas/Address"},
                "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
                "parent": {"$ref": f"#/components/schemas/{kind}"},  # a cycle through the full item
            },
        }
        schemas[kind] = {
            "allOf": [
                {"$ref": f"#/components/schemas/New{kind}"},
                {"type": "object", "properties": {"id": {"type": "integer", "readOnly": True}}},
            ]
        }
        collection, member = f"/items{index}", f"/items{index}/{{itemId}}"
        body = {"$ref": f"#/components/requestBodies/New{kind}"}
        one = {
            "description": "the item",
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{kind}"}}},
        }
        paths[collection] = {
            "get": {
                "operationId": f"list{kind}",
                "summary": f"List {kind}s",
                "parameters": [
                    {"$ref": "#/components/parameters/Limit"},
                    {"name": "q", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "a page",
                        "content": {
                            "application/json": {
                                "schema": {"type": "array", "items": {"$ref": f"#/components/schemas/{kind}"}}
                            }
                        },
                    }
                },
            },
            "post": {
                "operationId": f"create{kind}",
                "requestBody": body,
                "responses": {"201": one},
            },
        }
        paths[member] = {
            "parameters": [
                {"$ref": "#/components/parameters/ItemId"},
                {"name": "X-Tenant", "in": "header", "schema": {"type": "string"}},
            ],
            "get": {"responses": {"200": one}},  # no operationId: get_items<i>_itemId
            "put": {
                "operationId": f"replace{kind}",
                "parameters": [{"name": "X-Tenant", "in": "header", "required": True, "schema": {"type": "string"}}],
                "requestBody": body,
                "responses": {"200": one},
            },
            "delete": {"operationId": f"delete{kind}", "responses": {"204": {"description": "gone"}}},
        }
    request_bodies = {
        f"NewItem{i}": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/NewItem{i}"}}},
        }
        for i in range(resources)
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Inventory", "version": "2.4.1"},
        "paths": paths,
        "components": {
            "schemas": schemas,
            "parameters": {
                "Limit": {
                    "name": "limit",
                    "in": "query",
                    "description": "Page size",
                    "schema": {"type": "integer", "maximum": 100},
                    "example": 20,
                },
                "ItemId": {"name": "itemId", "in": "path", "required": True, "schema": {"type": "integer"}},
            },
            "requestBodies": request_bodies,
        },
    }


def small_spec() -> dict[str, Any]:
    """Three operations with paired examples, shared parameters and references: what the mutation test breaks."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1"},
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "tags": ["pets"],
                    "parameters": [{"name": "limit", "in": "query", "required": False, "schema": {"type": "integer"}}],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}
                                }
                            },
                        }
                    },
                },
                "post": {
                    "operationId": "createPet",
                    "x-squall-writes": True,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/Pet"},
                                "example": {"name": "Rex"},
                            }
                        },
                    },
                    "responses": {
                        "201": {
                            "description": "made",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Pet"},
                                    "example": {"name": "Rex"},
                                }
                            },
                        }
                    },
                },
            },
            "/pets/{petId}": {
                "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}}],
                "get": {
                    "operationId": "showPet",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
                        }
                    },
                },
            },
        },
        "components": {
            "schemas": {"Pet": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}
        },
    }
