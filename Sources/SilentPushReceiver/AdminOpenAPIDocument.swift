// Made by scripts/openapi.py from openapi.yaml (`make openapi`); do not edit.

/// The admin API's OpenAPI 3.1 document, served at `/v1/openapi.json`.
enum AdminOpenAPIDocument {
    static let json = #"""
        {
         "openapi": "3.1.0",
         "info": {
          "title": "silentpushd admin API",
          "version": "1",
          "summary": "Inspect and drive the simulated device behind silentpushd's APNs endpoint.",
          "description": "The admin API of `silentpushd` (HTTP/1.1, by default on 127.0.0.1:2199): what became of\neach push, the wakes and background task runs, the devices' state, the manual clock and\nfault injection.\n\n- Times are ISO 8601 device times with milliseconds (`2026-11-22T04:42:47.000Z`).\n- Requests that change state (POST, PUT, PATCH) send `content-type: application/json`;\n  a browser cannot send that across origins without asking first.\n- With `--admin-token`, every route but `/`, `/healthz`, `/readyz` and\n  `/v1/cluster/shards/{shard}` needs `authorization: Bearer <token>`.\n- Errors are RFC 9457 problem details (`application/problem+json`): `detail` says what to\n  fix. `error` repeats it for older clients.\n- Lists are newest first, but Live Activities, an app's task requests and fault rules,\n  which are oldest first, and devices, by token. A paged list answers `next`: pass it as `cursor` for the page\n  after; it is null on the last page.\n- `GET /v1/pushes` and `GET /v1/wakes` stream every match as NDJSON or CSV when asked with\n  `Accept: application/x-ndjson` or `Accept: text/csv`.\n\n`make lint` checks that `Sources/SilentPushReceiver/AdminOpenAPIDocument.swift`, which\nserves this document at `/v1/openapi.json`, was made from it; the tests hold every route of\nthe server against it.\n"
         },
         "servers": [
          {
           "url": "http://127.0.0.1:2199"
          }
         ],
         "security": [
          {},
          {
           "bearer": []
          }
         ],
         "tags": [
          {
           "name": "health"
          },
          {
           "name": "records",
           "description": "Pushes, wakes, fetched content and counts."
          },
          {
           "name": "devices",
           "description": "The simulated devices and their apps."
          },
          {
           "name": "tasks",
           "description": "BGTaskScheduler requests and runs."
          },
          {
           "name": "transfers",
           "description": "Background URLSession transfers, done by the device outside the wake."
          },
          {
           "name": "activities",
           "description": "Live Activities, as the device keeps them."
          },
          {
           "name": "faults",
           "description": "Make the APNs endpoint fail on purpose."
          },
          {
           "name": "clock"
          },
          {
           "name": "cluster",
           "description": "A cluster's receivers (silentpushd --cluster-shards) and who owns which shard."
          }
         ],
         "paths": {
          "/": {
           "get": {
            "tags": [
             "health"
            ],
            "operationId": "timeline",
            "summary": "The timeline page (HTML; it reads this API).",
            "security": [
             {}
            ],
            "responses": {
             "200": {
              "description": "The page.",
              "content": {
               "text/html": {
                "schema": {
                 "type": "string"
                }
               }
              }
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/healthz": {
           "get": {
            "tags": [
             "health"
            ],
            "operationId": "health",
            "summary": "Liveness.",
            "security": [
             {}
            ],
            "responses": {
             "200": {
              "description": "The process answers.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "status"
                 ],
                 "properties": {
                  "status": {
                   "const": "ok"
                  }
                 }
                }
               }
              }
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/readyz": {
           "get": {
            "tags": [
             "health"
            ],
            "operationId": "ready",
            "summary": "Readiness; 503 while the store cannot be written, or from SIGTERM on.",
            "security": [
             {}
            ],
            "responses": {
             "200": {
              "description": "Ready.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "status"
                 ],
                 "properties": {
                  "status": {
                   "const": "ready"
                  }
                 }
                }
               }
              }
             },
             "503": {
              "description": "The store cannot be written (unavailable), or the receiver is shutting down (draining).",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "status",
                  "error"
                 ],
                 "properties": {
                  "status": {
                   "enum": [
                    "unavailable",
                    "draining"
                   ]
                  },
                  "error": {
                   "type": "string"
                  }
                 }
                }
               }
              }
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/metrics": {
           "get": {
            "tags": [
             "health"
            ],
            "operationId": "metrics",
            "summary": "Prometheus metrics.",
            "responses": {
             "200": {
              "description": "The text exposition format.",
              "content": {
               "text/plain": {
                "schema": {
                 "type": "string"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/openapi.json": {
           "get": {
            "tags": [
             "health"
            ],
            "operationId": "openAPIDocument",
            "summary": "This document.",
            "responses": {
             "200": {
              "description": "The OpenAPI document.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "openapi",
                  "paths"
                 ]
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/pushes": {
           "get": {
            "tags": [
             "records"
            ],
            "operationId": "listPushes",
            "summary": "Pushes and their fates, newest first; or all of them as NDJSON or CSV.",
            "parameters": [
             {
              "$ref": "#/components/parameters/DeviceFilter"
             },
             {
              "$ref": "#/components/parameters/TopicFilter"
             },
             {
              "name": "fate",
              "in": "query",
              "schema": {
               "$ref": "#/components/schemas/Fate"
              }
             },
             {
              "name": "from",
              "in": "query",
              "description": "Received at or after this device time.",
              "schema": {
               "type": "string",
               "format": "date-time"
              }
             },
             {
              "name": "until",
              "in": "query",
              "description": "Received before this device time.",
              "schema": {
               "type": "string",
               "format": "date-time"
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "description": "The `next` of the page before.",
              "schema": {
               "type": "string",
               "pattern": "^[0-9]{1,19}$"
              }
             },
             {
              "$ref": "#/components/parameters/Limit"
             }
            ],
            "responses": {
             "200": {
              "description": "A page of pushes (JSON), or every match (NDJSON, CSV).",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "pushes",
                  "next"
                 ],
                 "properties": {
                  "pushes": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Push"
                   }
                  },
                  "next": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               },
               "application/x-ndjson": {
                "schema": {
                 "type": "string",
                 "description": "One push (as in JSON) per line."
                }
               },
               "text/csv": {
                "schema": {
                 "type": "string",
                 "description": "A header line",
                 "then one push per line.": null
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/pushes/{apnsID}": {
           "get": {
            "tags": [
             "records"
            ],
            "operationId": "getPush",
            "summary": "One push, by its apns-id or (development environment) its apns-unique-id.",
            "parameters": [
             {
              "name": "apnsID",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "minLength": 1
              }
             }
            ],
            "responses": {
             "200": {
              "description": "The push.",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Push"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/wakes": {
           "get": {
            "tags": [
             "records"
            ],
            "operationId": "listWakes",
            "summary": "Background launches for pushes, and widget and control reloads, newest first; or all of them as NDJSON or CSV.",
            "parameters": [
             {
              "$ref": "#/components/parameters/DeviceFilter"
             },
             {
              "$ref": "#/components/parameters/TopicFilter"
             },
             {
              "name": "kind",
              "in": "query",
              "description": "Only wakes of this kind (`fetch`, the app's background launches; `widgets` or `controls`, reloads by push).",
              "schema": {
               "enum": [
                "fetch",
                "widgets",
                "controls"
               ]
              }
             },
             {
              "name": "from",
              "in": "query",
              "description": "Started at or after this device time.",
              "schema": {
               "type": "string",
               "format": "date-time"
              }
             },
             {
              "name": "until",
              "in": "query",
              "description": "Started before this device time.",
              "schema": {
               "type": "string",
               "format": "date-time"
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "description": "The `next` of the page before.",
              "schema": {
               "type": "string",
               "pattern": "^[0-9]{1,19}$"
              }
             },
             {
              "$ref": "#/components/parameters/Limit"
             }
            ],
            "responses": {
             "200": {
              "description": "A page of wakes (JSON), or every match (NDJSON, CSV).",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "wakes",
                  "next"
                 ],
                 "properties": {
                  "wakes": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Wake"
                   }
                  },
                  "next": {
                   "type": [
                    "string",
                    "null"
                   ],
                   "description": "The cursor of the page after; null on the last page."
                  }
                 }
                }
               },
               "application/x-ndjson": {
                "schema": {
                 "type": "string"
                }
               },
               "text/csv": {
                "schema": {
                 "type": "string"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/stats": {
           "get": {
            "tags": [
             "records"
            ],
            "operationId": "stats",
            "summary": "Counts of pushes by fate, drops and rejections by reason, wakes by result (reloads by kind).",
            "responses": {
             "200": {
              "description": "The counts.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "pushes",
                  "dropped",
                  "rejected",
                  "wakes"
                 ],
                 "properties": {
                  "pushes": {
                   "$ref": "#/components/schemas/Counts"
                  },
                  "dropped": {
                   "$ref": "#/components/schemas/Counts"
                  },
                  "rejected": {
                   "$ref": "#/components/schemas/Counts"
                  },
                  "wakes": {
                   "$ref": "#/components/schemas/Counts"
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/contents": {
           "get": {
            "tags": [
             "records"
            ],
            "operationId": "listContents",
            "summary": "What the fetch handlers fetched, newest first.",
            "parameters": [
             {
              "$ref": "#/components/parameters/DeviceFilter"
             },
             {
              "$ref": "#/components/parameters/TopicFilter"
             },
             {
              "$ref": "#/components/parameters/Limit"
             }
            ],
            "responses": {
             "200": {
              "description": "The contents.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "contents"
                 ],
                 "properties": {
                  "contents": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Content"
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/contents/body": {
           "get": {
            "tags": [
             "records"
            ],
            "operationId": "getContentBody",
            "summary": "The latest body fetched for a device, topic and (optionally) URL, as served.",
            "parameters": [
             {
              "name": "device",
              "in": "query",
              "required": true,
              "schema": {
               "$ref": "#/components/schemas/DeviceToken"
              }
             },
             {
              "name": "topic",
              "in": "query",
              "required": true,
              "schema": {
               "type": "string",
               "minLength": 1
              }
             },
             {
              "name": "url",
              "in": "query",
              "description": "The URL as fetched, or as `GET /v1/contents` lists it (user and password shown as ***; the most recently fetched of those that list alike).",
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "description": "The body, with the origin's content type and ETag.",
              "content": {
               "*/*": {
                "schema": {
                 "type": "string"
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/devices": {
           "get": {
            "tags": [
             "devices"
            ],
            "operationId": "listDevices",
            "summary": "The devices known (pushed to, set or registered), by token.",
            "parameters": [
             {
              "$ref": "#/components/parameters/TopicFilter"
             },
             {
              "name": "state",
              "in": "query",
              "description": "Only devices in every state given.",
              "style": "form",
              "explode": true,
              "schema": {
               "type": "array",
               "items": {
                "enum": [
                 "forceQuit",
                 "backgroundRefreshOff",
                 "lowPowerMode",
                 "charging",
                 "debuggerAttached",
                 "idle",
                 "offline",
                 "lowBattery",
                 "hot"
                ]
               }
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "description": "The `next` of the page before (a device token); anything else is 422.",
              "schema": {
               "$ref": "#/components/schemas/DeviceToken"
              }
             },
             {
              "$ref": "#/components/parameters/Limit"
             }
            ],
            "responses": {
             "200": {
              "description": "A page of devices.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "devices",
                  "next"
                 ],
                 "properties": {
                  "devices": {
                   "type": "array",
                   "items": {
                    "allOf": [
                     {
                      "$ref": "#/components/schemas/Device"
                     },
                     {
                      "type": "object",
                      "required": [
                       "topics"
                      ],
                      "properties": {
                       "topics": {
                        "type": "array",
                        "items": {
                         "type": "string"
                        }
                       }
                      }
                     }
                    ]
                   }
                  },
                  "next": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}": {
           "parameters": [
            {
             "$ref": "#/components/parameters/Token"
            }
           ],
           "get": {
            "tags": [
             "devices"
            ],
            "operationId": "getDevice",
            "summary": "A device's state (a device never seen has the default state).",
            "responses": {
             "200": {
              "$ref": "#/components/responses/Device"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           },
           "patch": {
            "tags": [
             "devices"
            ],
            "operationId": "patchDevice",
            "summary": "Change a device's state; only the fields given change.",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/DevicePatch"
               }
              }
             }
            },
            "responses": {
             "200": {
              "$ref": "#/components/responses/Device"
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           },
           "delete": {
            "tags": [
             "devices"
            ],
            "operationId": "forgetDevice",
            "summary": "Forget a device, what waits for it and every record of it.",
            "responses": {
             "200": {
              "description": "Forgotten.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "deleted"
                 ],
                 "properties": {
                  "deleted": {
                   "$ref": "#/components/schemas/DeviceToken"
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/reboot": {
           "post": {
            "tags": [
             "devices"
            ],
            "operationId": "rebootDevice",
            "summary": "Restart the device; what its apps run is killed, and no background launch starts during the warm-up.",
            "parameters": [
             {
              "$ref": "#/components/parameters/Token"
             }
            ],
            "requestBody": {
             "$ref": "#/components/requestBodies/Empty"
            },
            "responses": {
             "200": {
              "description": "The device, and when its warm-up ends.",
              "content": {
               "application/json": {
                "schema": {
                 "allOf": [
                  {
                   "$ref": "#/components/schemas/Device"
                  },
                  {
                   "type": "object",
                   "required": [
                    "warmUpUntil"
                   ],
                   "properties": {
                    "warmUpUntil": {
                     "type": "string",
                     "format": "date-time"
                    }
                   }
                  }
                 ]
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/reinstall": {
           "post": {
            "tags": [
             "devices"
            ],
            "operationId": "reinstallApp",
            "summary": "Delete and install the app again; the old token answers 410 Unregistered. 409 for a token already unregistered or expired.",
            "parameters": [
             {
              "$ref": "#/components/parameters/Token"
             }
            ],
            "requestBody": {
             "$ref": "#/components/requestBodies/Empty"
            },
            "responses": {
             "200": {
              "description": "The new token.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "deviceToken",
                  "previousDeviceToken",
                  "unregisteredAt"
                 ],
                 "properties": {
                  "deviceToken": {
                   "$ref": "#/components/schemas/DeviceToken"
                  },
                  "previousDeviceToken": {
                   "$ref": "#/components/schemas/DeviceToken"
                  },
                  "unregisteredAt": {
                   "type": "string",
                   "format": "date-time"
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "409": {
              "$ref": "#/components/responses/Conflict"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/apps/{topic}": {
           "parameters": [
            {
             "$ref": "#/components/parameters/Token"
            },
            {
             "$ref": "#/components/parameters/Topic"
            }
           ],
           "get": {
            "tags": [
             "devices"
            ],
            "operationId": "getApp",
            "summary": "When the user last opened the app.",
            "responses": {
             "200": {
              "$ref": "#/components/responses/App"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           },
           "patch": {
            "tags": [
             "devices"
            ],
            "operationId": "patchApp",
            "summary": "The user opens the app now, or last opened it at a time (or never); or the app has NSSupportsLiveActivitiesFrequentUpdates.",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "oneOf": [
                 {
                  "type": "object",
                  "required": [
                   "opened"
                  ],
                  "additionalProperties": false,
                  "properties": {
                   "opened": {
                    "const": true
                   }
                  }
                 },
                 {
                  "type": "object",
                  "required": [
                   "lastOpenedAt"
                  ],
                  "additionalProperties": false,
                  "properties": {
                   "lastOpenedAt": {
                    "type": [
                     "string",
                     "null"
                    ],
                    "format": "date-time"
                   }
                  }
                 },
                 {
                  "type": "object",
                  "required": [
                   "frequentUpdates"
                  ],
                  "additionalProperties": false,
                  "properties": {
                   "frequentUpdates": {
                    "type": "boolean"
                   }
                  }
                 }
                ]
               }
              }
             }
            },
            "responses": {
             "200": {
              "$ref": "#/components/responses/App"
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/apps/{topic}/forecast": {
           "get": {
            "tags": [
             "devices"
            ],
            "operationId": "forecast",
            "summary": "If a push came now, when it would wake the app and why not sooner. Changes nothing.",
            "parameters": [
             {
              "$ref": "#/components/parameters/Token"
             },
             {
              "$ref": "#/components/parameters/Topic"
             },
             {
              "name": "priority",
              "in": "query",
              "schema": {
               "enum": [
                "1",
                "5",
                "10"
               ]
              }
             }
            ],
            "responses": {
             "200": {
              "description": "The forecast.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "deviceToken",
                  "topic",
                  "priority",
                  "now",
                  "wakeAt",
                  "why"
                 ],
                 "properties": {
                  "deviceToken": {
                   "$ref": "#/components/schemas/DeviceToken"
                  },
                  "topic": {
                   "type": "string"
                  },
                  "priority": {
                   "enum": [
                    1,
                    5,
                    10
                   ]
                  },
                  "now": {
                   "type": "string",
                   "format": "date-time"
                  },
                  "wakeAt": {
                   "type": [
                    "string",
                    "null"
                   ],
                   "format": "date-time"
                  },
                  "why": {
                   "$ref": "#/components/schemas/Why"
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/activities": {
           "get": {
            "tags": [
             "activities"
            ],
            "operationId": "listAllActivities",
            "summary": "The newest Live Activities of every device (or one device, one app), oldest first, each with every decision about its updates.",
            "parameters": [
             {
              "$ref": "#/components/parameters/DeviceFilter"
             },
             {
              "$ref": "#/components/parameters/BundleIDFilter"
             },
             {
              "$ref": "#/components/parameters/Limit"
             }
            ],
            "responses": {
             "200": {
              "description": "The activities.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "activities"
                 ],
                 "properties": {
                  "activities": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/LiveActivity"
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/broadcasts": {
           "get": {
            "tags": [
             "activities"
            ],
            "operationId": "listBroadcasts",
            "summary": "The broadcasts APNs accepted in the receiver's environment, newest first. What each did is in its subscribers' activity updates (their apnsId is its requestId).",
            "parameters": [
             {
              "$ref": "#/components/parameters/BundleIDFilter"
             },
             {
              "$ref": "#/components/parameters/Limit"
             }
            ],
            "responses": {
             "200": {
              "description": "The broadcasts.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "broadcasts"
                 ],
                 "properties": {
                  "broadcasts": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Broadcast"
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/apps/{topic}/activities": {
           "parameters": [
            {
             "$ref": "#/components/parameters/Token"
            },
            {
             "$ref": "#/components/parameters/Topic"
            }
           ],
           "get": {
            "tags": [
             "activities"
            ],
            "operationId": "listActivities",
            "summary": "The app's Live Activities, oldest first, each with every decision about its updates.",
            "responses": {
             "200": {
              "description": "The activities.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "activities"
                 ],
                 "properties": {
                  "activities": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/LiveActivity"
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           },
           "post": {
            "tags": [
             "activities"
            ],
            "operationId": "startActivity",
            "summary": "The app starts a Live Activity (Activity.request), on a channel or with a new push token.",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "type": "object",
                "required": [
                 "attributesType"
                ],
                "additionalProperties": false,
                "properties": {
                 "attributesType": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 200,
                  "pattern": "^[!-.0-~]+$"
                 },
                 "attributes": {
                  "type": "object"
                 },
                 "contentState": {
                  "type": "object"
                 },
                 "channel": {
                  "type": [
                   "string",
                   "null"
                  ],
                  "minLength": 1,
                  "description": "A channel id (apns-channel-id); null or absent: a push token is issued."
                 }
                }
               }
              }
             }
            },
            "responses": {
             "201": {
              "description": "The activity.",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/LiveActivity"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "409": {
              "$ref": "#/components/responses/AppNotInstalled"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/apps/{topic}/tasks": {
           "parameters": [
            {
             "$ref": "#/components/parameters/Token"
            },
            {
             "$ref": "#/components/parameters/Topic"
            }
           ],
           "post": {
            "tags": [
             "tasks"
            ],
            "operationId": "submitTask",
            "summary": "BGTaskScheduler.submit; a request with the same identifier replaces the pending one.",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/TaskSubmission"
               }
              }
             }
            },
            "responses": {
             "201": {
              "description": "The pending request.",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/TaskRequest"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "403": {
              "$ref": "#/components/responses/TaskRefused"
             },
             "409": {
              "$ref": "#/components/responses/TaskConflict"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           },
           "get": {
            "tags": [
             "tasks"
            ],
            "operationId": "listTasks",
            "summary": "The app's pending requests, oldest first, each with why it waits.",
            "responses": {
             "200": {
              "description": "The pending requests.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "requests"
                 ],
                 "properties": {
                  "requests": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/TaskRequest"
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           },
           "delete": {
            "tags": [
             "tasks"
            ],
            "operationId": "cancelAllTasks",
            "summary": "BGTaskScheduler.cancelAllTaskRequests.",
            "responses": {
             "200": {
              "$ref": "#/components/responses/Cancelled"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/apps/{topic}/tasks/{identifier}": {
           "delete": {
            "tags": [
             "tasks"
            ],
            "operationId": "cancelTask",
            "summary": "BGTaskScheduler.cancel(taskRequestWithIdentifier:).",
            "parameters": [
             {
              "$ref": "#/components/parameters/Token"
             },
             {
              "$ref": "#/components/parameters/Topic"
             },
             {
              "$ref": "#/components/parameters/TaskIdentifier"
             }
            ],
            "responses": {
             "200": {
              "$ref": "#/components/responses/Cancelled"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/apps/{topic}/tasks/{identifier}/simulate-launch": {
           "post": {
            "tags": [
             "tasks"
            ],
            "operationId": "simulateTaskLaunch",
            "summary": "The debugger's _simulateLaunchForTaskWithIdentifier.",
            "parameters": [
             {
              "$ref": "#/components/parameters/Token"
             },
             {
              "$ref": "#/components/parameters/Topic"
             },
             {
              "$ref": "#/components/parameters/TaskIdentifier"
             }
            ],
            "requestBody": {
             "$ref": "#/components/requestBodies/Empty"
            },
            "responses": {
             "200": {
              "$ref": "#/components/responses/TaskRun"
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/devices/{token}/apps/{topic}/tasks/{identifier}/simulate-expiration": {
           "post": {
            "tags": [
             "tasks"
            ],
            "operationId": "simulateTaskExpiration",
            "summary": "The debugger's _simulateExpirationForTaskWithIdentifier.",
            "parameters": [
             {
              "$ref": "#/components/parameters/Token"
             },
             {
              "$ref": "#/components/parameters/Topic"
             },
             {
              "$ref": "#/components/parameters/TaskIdentifier"
             }
            ],
            "requestBody": {
             "$ref": "#/components/requestBodies/Empty"
            },
            "responses": {
             "200": {
              "$ref": "#/components/responses/TaskRun"
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/task-runs": {
           "get": {
            "tags": [
             "tasks"
            ],
            "operationId": "listTaskRuns",
            "summary": "Background task runs, newest first, with the requests that never ran (cancelled or replaced).",
            "parameters": [
             {
              "$ref": "#/components/parameters/DeviceFilter"
             },
             {
              "$ref": "#/components/parameters/TopicFilter"
             },
             {
              "$ref": "#/components/parameters/Limit"
             },
             {
              "name": "neverRan",
              "in": "query",
              "description": "`false`: runs only, without the requests that never ran.",
              "schema": {
               "type": "boolean",
               "default": true
              }
             }
            ],
            "responses": {
             "200": {
              "description": "The runs.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "runs"
                 ],
                 "properties": {
                  "runs": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/TaskRunRecord"
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/transfers": {
           "get": {
            "tags": [
             "transfers"
            ],
            "operationId": "listTransfers",
            "summary": "Background transfers the apps handed their background sessions, newest first.",
            "parameters": [
             {
              "$ref": "#/components/parameters/DeviceFilter"
             },
             {
              "$ref": "#/components/parameters/TopicFilter"
             },
             {
              "name": "session",
              "in": "query",
              "description": "Only this background session's transfers.",
              "schema": {
               "type": "string",
               "minLength": 1,
               "maxLength": 200
              }
             },
             {
              "name": "wake",
              "in": "query",
              "description": "Only the transfers this wake's handler handed over (or that were refused).",
              "schema": {
               "type": "integer",
               "minimum": 0,
               "maximum": 9223372036854775807
              }
             },
             {
              "name": "taskRun",
              "in": "query",
              "description": "Only the transfers this task run's handler handed over (or that were refused).",
              "schema": {
               "type": "integer",
               "minimum": 0,
               "maximum": 9223372036854775807
              }
             },
             {
              "name": "cursor",
              "in": "query",
              "description": "The `next` of the page before.",
              "schema": {
               "type": "string",
               "pattern": "^[0-9]{1,19}$"
              }
             },
             {
              "$ref": "#/components/parameters/Limit"
             }
            ],
            "responses": {
             "200": {
              "description": "A page of transfers.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "transfers",
                  "next"
                 ],
                 "properties": {
                  "transfers": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/Transfer"
                   }
                  },
                  "next": {
                   "type": [
                    "string",
                    "null"
                   ]
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/StoreUnavailable"
             }
            }
           }
          },
          "/v1/faults": {
           "post": {
            "tags": [
             "faults"
            ],
            "operationId": "addFault",
            "summary": "Add a fault rule; matching pushes are answered by its action (fate `injected`).",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/FaultRuleInput"
               }
              }
             }
            },
            "responses": {
             "201": {
              "description": "The rule.",
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/FaultRule"
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "409": {
              "$ref": "#/components/responses/Conflict"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           },
           "get": {
            "tags": [
             "faults"
            ],
            "operationId": "listFaults",
            "summary": "The fault rules, oldest first.",
            "responses": {
             "200": {
              "description": "The rules.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "faults"
                 ],
                 "properties": {
                  "faults": {
                   "type": "array",
                   "items": {
                    "$ref": "#/components/schemas/FaultRule"
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           },
           "delete": {
            "tags": [
             "faults"
            ],
            "operationId": "removeAllFaults",
            "summary": "Remove every fault rule.",
            "responses": {
             "200": {
              "$ref": "#/components/responses/Removed"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/faults/{id}": {
           "delete": {
            "tags": [
             "faults"
            ],
            "operationId": "removeFault",
            "summary": "Remove one fault rule.",
            "parameters": [
             {
              "name": "id",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string",
               "pattern": "^[0-9]{1,19}$"
              }
             }
            ],
            "responses": {
             "200": {
              "$ref": "#/components/responses/Removed"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/reset": {
           "post": {
            "tags": [
             "devices"
            ],
            "operationId": "reset",
            "summary": "Forget everything (for tests) \u2014 devices, records, registrations, fault rules. The clock and the apps' broadcast channels stay.",
            "requestBody": {
             "$ref": "#/components/requestBodies/Empty"
            },
            "responses": {
             "200": {
              "description": "Everything forgotten.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "reset"
                 ],
                 "properties": {
                  "reset": {
                   "const": true
                  }
                 }
                }
               }
              }
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/events": {
           "get": {
            "tags": [
             "records"
            ],
            "operationId": "events",
            "summary": "Server-sent events that say when the record changed (the timeline listens to them).",
            "description": "A `text/event-stream` that does not end until the receiver shuts down (or the client\ngoes). A `change` event comes at most four times a second, once what changed is\ncommitted, with `{\"changes\", \"clock\", \"now\"}`: `changes` counts the steps that changed\nthe record (pushes, wakes, task runs, device state); on the manual clock a move of the\nclock sends an event too, with the new `now` (`changes` counts the record's steps only).\nA comment line comes every 15 s on a quiet stream. The first event\ncomes at once; with `limit`, the stream ends after that many.\n",
            "parameters": [
             {
              "name": "limit",
              "in": "query",
              "description": "End the stream after this many events.",
              "schema": {
               "type": "integer",
               "minimum": 1,
               "maximum": 10000
              }
             }
            ],
            "responses": {
             "200": {
              "description": "The stream; each event as below.",
              "content": {
               "text/event-stream": {
                "schema": {
                 "type": "object",
                 "required": [
                  "event",
                  "data"
                 ],
                 "properties": {
                  "event": {
                   "const": "change"
                  },
                  "data": {
                   "type": "string",
                   "contentMediaType": "application/json",
                   "contentSchema": {
                    "type": "object",
                    "required": [
                     "changes",
                     "clock",
                     "now"
                    ],
                    "properties": {
                     "changes": {
                      "type": "integer",
                      "minimum": 0
                     },
                     "clock": {
                      "enum": [
                       "system",
                       "manual"
                      ]
                     },
                     "now": {
                      "type": "string",
                      "format": "date-time"
                     }
                    }
                   }
                  },
                  "id": {
                   "type": "string"
                  },
                  "retry": {
                   "type": "integer",
                   "minimum": 0
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "description": "16 event streams are open already (each timeline page holds one); close one.",
              "content": {
               "application/problem+json": {
                "schema": {
                 "$ref": "#/components/schemas/Problem"
                }
               }
              }
             }
            }
           }
          },
          "/v1/clock": {
           "get": {
            "tags": [
             "clock"
            ],
            "operationId": "getClock",
            "summary": "The device clock, system or manual, and its time.",
            "responses": {
             "200": {
              "$ref": "#/components/responses/Clock"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/clock/advance": {
           "post": {
            "tags": [
             "clock"
            ],
            "operationId": "advanceClock",
            "summary": "Move the manual clock forward; wakes, deadlines and expirations due meanwhile happen in order.",
            "requestBody": {
             "required": true,
             "content": {
              "application/json": {
               "schema": {
                "type": "object",
                "required": [
                 "seconds"
                ],
                "additionalProperties": false,
                "properties": {
                 "seconds": {
                  "type": "number",
                  "minimum": 0,
                  "maximum": 315360000
                 }
                }
               }
              }
             }
            },
            "responses": {
             "200": {
              "$ref": "#/components/responses/Clock"
             },
             "400": {
              "$ref": "#/components/responses/BadRequest"
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "409": {
              "$ref": "#/components/responses/Conflict"
             },
             "413": {
              "$ref": "#/components/responses/TooLarge"
             },
             "415": {
              "$ref": "#/components/responses/NotJSON"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             },
             "503": {
              "$ref": "#/components/responses/ClusterUnavailable"
             }
            }
           }
          },
          "/v1/cluster": {
           "get": {
            "tags": [
             "cluster"
            ],
            "operationId": "getCluster",
            "summary": "This receiver's part in its cluster, its live peers and the shared store; 404 when it stands alone.",
            "responses": {
             "200": {
              "description": "The cluster as this receiver sees it.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "name",
                  "shards",
                  "claimIntervalMs",
                  "owned",
                  "store",
                  "members",
                  "storeError"
                 ],
                 "properties": {
                  "name": {
                   "type": "string"
                  },
                  "shards": {
                   "type": "integer",
                   "minimum": 1,
                   "maximum": 1024
                  },
                  "claimIntervalMs": {
                   "type": "integer",
                   "minimum": 100
                  },
                  "owned": {
                   "type": "array",
                   "items": {
                    "type": "integer",
                    "minimum": 0
                   }
                  },
                  "store": {
                   "type": "string"
                  },
                  "storeError": {
                   "type": [
                    "string",
                    "null"
                   ],
                   "description": "Why the store cannot be read now (its members are then null); null when it can."
                  },
                  "members": {
                   "type": [
                    "array",
                    "null"
                   ],
                   "items": {
                    "type": "object",
                    "required": [
                     "name",
                     "session",
                     "joinedAt",
                     "shards"
                    ],
                    "properties": {
                     "name": {
                      "type": "string"
                     },
                     "session": {
                      "type": "integer"
                     },
                     "joinedAt": {
                      "type": "string",
                      "format": "date-time"
                     },
                     "shards": {
                      "type": "array",
                      "items": {
                       "type": "integer",
                       "minimum": 0
                      }
                     }
                    }
                   }
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          },
          "/v1/cluster/shards/{shard}": {
           "get": {
            "tags": [
             "cluster"
            ],
            "operationId": "getClusterShard",
            "summary": "200 only at the receiver that owns the shard (a proxy's health check per shard backend); 503 elsewhere. A shard number needs no admin token.",
            "security": [
             {}
            ],
            "parameters": [
             {
              "name": "shard",
              "in": "path",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "description": "This receiver owns the shard and takes its devices' pushes.",
              "content": {
               "application/json": {
                "schema": {
                 "type": "object",
                 "required": [
                  "shard",
                  "owner"
                 ],
                 "properties": {
                  "shard": {
                   "type": "integer",
                   "minimum": 0
                  },
                  "owner": {
                   "type": "string"
                  }
                 }
                }
               }
              }
             },
             "401": {
              "$ref": "#/components/responses/Unauthorized"
             },
             "404": {
              "$ref": "#/components/responses/NotFound"
             },
             "421": {
              "$ref": "#/components/responses/MisdirectedRequest"
             },
             "503": {
              "description": "Another receiver owns the shard, or none does yet.",
              "content": {
               "application/problem+json": {
                "schema": {
                 "$ref": "#/components/schemas/Problem"
                }
               }
              }
             },
             "422": {
              "$ref": "#/components/responses/Unprocessable"
             }
            }
           }
          }
         },
         "components": {
          "securitySchemes": {
           "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "The token given to `--admin-token`."
           }
          },
          "parameters": {
           "Token": {
            "name": "token",
            "in": "path",
            "required": true,
            "schema": {
             "$ref": "#/components/schemas/DeviceToken"
            },
            "example": "abababababababababababababababababababababababababababababababab"
           },
           "Topic": {
            "name": "topic",
            "in": "path",
            "required": true,
            "description": "The app's bundle ID, with any push-type suffix (1 to 255 visible ASCII characters, no `/`).",
            "schema": {
             "type": "string",
             "pattern": "^[!-.0-~]{1,255}$"
            },
            "example": "com.example.app"
           },
           "TaskIdentifier": {
            "name": "identifier",
            "in": "path",
            "required": true,
            "schema": {
             "$ref": "#/components/schemas/TaskIdentifier"
            },
            "example": "com.example.app.refresh"
           },
           "DeviceFilter": {
            "name": "device",
            "in": "query",
            "schema": {
             "$ref": "#/components/schemas/DeviceToken"
            }
           },
           "TopicFilter": {
            "name": "topic",
            "in": "query",
            "description": "Only this topic's, as the pushes were sent (an empty one is 422).",
            "schema": {
             "type": "string",
             "minLength": 1
            }
           },
           "BundleIDFilter": {
            "name": "bundleId",
            "in": "query",
            "description": "One app's, by bundle ID (1 to 255 visible ASCII characters, no `/`).",
            "schema": {
             "type": "string",
             "pattern": "^[!-.0-~]{1,255}$"
            }
           },
           "Limit": {
            "name": "limit",
            "in": "query",
            "schema": {
             "type": "integer",
             "minimum": 1,
             "maximum": 1000,
             "default": 100
            }
           }
          },
          "requestBodies": {
           "Empty": {
            "description": "Nothing to say: `{}` (the content type is what counts).",
            "required": true,
            "content": {
             "application/json": {
              "schema": {
               "type": "object",
               "maxProperties": 0
              }
             }
            }
           }
          },
          "responses": {
           "BadRequest": {
            "description": "The body is not JSON.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "Unauthorized": {
            "description": "--admin-token is set and the request did not send it.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "NotFound": {
            "description": "No such record.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "Conflict": {
            "description": "The request cannot apply now (see `detail`).",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "TooLarge": {
            "description": "The body is over 64 KiB.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "NotJSON": {
            "description": "A request that changes state did not say `content-type application/json`.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "MisdirectedRequest": {
            "description": "The Host header names neither this listener nor one of `--admin-host`.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "Unprocessable": {
            "description": "A field or parameter is wrong; `detail` names it.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "ClusterUnavailable": {
            "description": "A receiver of a cluster (`--cluster-shards`) cannot answer this now, with `detail`\nsaying why: the device is in a shard another receiver owns (named; through the\ncluster's proxy the request reaches it), a change for the whole cluster was not made\nby every receiver, or the store cannot be read; or (any receiver) a change of the\ndevice side (a task submitted, a device state, a reboot\u2026) while the receiver shuts down\n(SIGTERM's drain) or while the store takes no writes: nothing is changed then.\n",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "StoreUnavailable": {
            "description": "The store cannot be reached now (PostgreSQL down or unreachable, a cluster's store\nsession ended, the store closing): `detail` says why. Try again once it is back; the\nreceiver needs no restart.\n",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "AppNotInstalled": {
            "description": "The app is not installed on the device (its token is unregistered); `detail` says how to register it again.",
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            }
           },
           "TaskConflict": {
            "description": "BGTaskScheduler refused the request (`code` `unavailable`, `tooManyPendingTaskRequests` or\n`immediateRunIneligible`, with `errorCode`), or the app is not installed on the device (its\ntoken is unregistered; no `code`). `immediateRunIneligible` comes with `why`: what kept\nthe continued task from starting at once (the device's continued tasks all running, a\nrestart's warm-up, a force-quit, a critical thermal state).\n",
            "content": {
             "application/problem+json": {
              "schema": {
               "allOf": [
                {
                 "$ref": "#/components/schemas/Problem"
                },
                {
                 "type": "object",
                 "properties": {
                  "code": {
                   "enum": [
                    "unavailable",
                    "tooManyPendingTaskRequests",
                    "immediateRunIneligible"
                   ]
                  },
                  "errorCode": {
                   "enum": [
                    1,
                    2,
                    4
                   ]
                  },
                  "why": {
                   "$ref": "#/components/schemas/Why"
                  }
                 }
                }
               ]
              }
             }
            }
           },
           "TaskRefused": {
            "description": "BGTaskScheduler refused the request: 403 `notPermitted` (the app does not declare the\nidentifier or the background mode); 409 `unavailable`, `tooManyPendingTaskRequests` or\n`immediateRunIneligible`.\n",
            "content": {
             "application/problem+json": {
              "schema": {
               "allOf": [
                {
                 "$ref": "#/components/schemas/Problem"
                },
                {
                 "type": "object",
                 "required": [
                  "code",
                  "errorCode"
                 ],
                 "properties": {
                  "code": {
                   "enum": [
                    "unavailable",
                    "tooManyPendingTaskRequests",
                    "notPermitted",
                    "immediateRunIneligible"
                   ]
                  },
                  "errorCode": {
                   "enum": [
                    1,
                    2,
                    3,
                    4
                   ]
                  }
                 }
                }
               ]
              }
             }
            }
           },
           "Device": {
            "description": "The device.",
            "content": {
             "application/json": {
              "schema": {
               "$ref": "#/components/schemas/Device"
              }
             }
            }
           },
           "App": {
            "description": "The app on the device.",
            "content": {
             "application/json": {
              "schema": {
               "type": "object",
               "required": [
                "deviceToken",
                "topic",
                "lastOpenedAt",
                "pushToStartToken",
                "frequentUpdates"
               ],
               "properties": {
                "deviceToken": {
                 "$ref": "#/components/schemas/DeviceToken"
                },
                "topic": {
                 "type": "string"
                },
                "lastOpenedAt": {
                 "type": [
                  "string",
                  "null"
                 ],
                 "format": "date-time"
                },
                "pushToStartToken": {
                 "description": "The token a Live Activity `start` push goes to (the device token and 16 hex digits), the app's bundle id's whichever of its topics the path names.",
                 "type": "string"
                },
                "frequentUpdates": {
                 "description": "The app has NSSupportsLiveActivitiesFrequentUpdates (a larger hourly budget).",
                 "type": "boolean"
                }
               }
              }
             }
            }
           },
           "Cancelled": {
            "description": "How many pending requests were cancelled.",
            "content": {
             "application/json": {
              "schema": {
               "type": "object",
               "required": [
                "cancelled"
               ],
               "properties": {
                "cancelled": {
                 "type": "integer",
                 "minimum": 0
                }
               }
              }
             }
            }
           },
           "Removed": {
            "description": "What was removed.",
            "content": {
             "application/json": {
              "schema": {
               "type": "object",
               "required": [
                "removed"
               ],
               "properties": {
                "removed": {
                 "type": "integer",
                 "minimum": 0
                }
               }
              }
             }
            }
           },
           "TaskRun": {
            "description": "The run.",
            "content": {
             "application/json": {
              "schema": {
               "$ref": "#/components/schemas/TaskRunRecord"
              }
             }
            }
           },
           "Clock": {
            "description": "The clock.",
            "content": {
             "application/json": {
              "schema": {
               "type": "object",
               "required": [
                "clock",
                "now"
               ],
               "properties": {
                "clock": {
                 "enum": [
                  "system",
                  "manual"
                 ]
                },
                "now": {
                 "type": "string",
                 "format": "date-time"
                }
               }
              }
             }
            }
           }
          },
          "schemas": {
           "LiveActivity": {
            "type": "object",
            "required": [
             "id",
             "deviceToken",
             "bundleId",
             "pushToken",
             "channel",
             "state",
             "why",
             "attributesType",
             "attributes",
             "contentState",
             "staleDate",
             "endedAt",
             "dismissalDate",
             "relevanceScore",
             "startedAt",
             "activeUntil",
             "updates"
            ],
            "properties": {
             "id": {
              "type": "string"
             },
             "deviceToken": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "bundleId": {
              "type": "string"
             },
             "pushToken": {
              "type": [
               "string",
               "null"
              ],
              "description": "Its update token; null for a channel activity or one started without input-push-token."
             },
             "channel": {
              "type": [
               "string",
               "null"
              ],
              "description": "The channel it listens on; null for a token activity."
             },
             "state": {
              "enum": [
               "active",
               "stale",
               "ended",
               "dismissed"
              ]
             },
             "why": {
              "type": "string",
              "description": "Why it is as it is now: the device's last decision about it (its start, an update applied, its stale date, its end by a push or by the system after --activity-max-active, 8 hours by default, its dismissal)."
             },
             "attributesType": {
              "type": "string"
             },
             "attributes": {
              "type": "object"
             },
             "contentState": {
              "type": "object"
             },
             "staleDate": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "endedAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "dismissalDate": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time",
              "description": "When an ended activity leaves (or left) the Lock Screen."
             },
             "relevanceScore": {
              "type": [
               "number",
               "null"
              ]
             },
             "startedAt": {
              "type": "string",
              "format": "date-time"
             },
             "activeUntil": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time",
              "description": "When the system ends it (--activity-max-active after its start); null once it has ended."
             },
             "updates": {
              "type": "array",
              "items": {
               "type": "object",
               "required": [
                "apnsId",
                "applied",
                "outcome",
                "why",
                "at"
               ],
               "properties": {
                "apnsId": {
                 "type": "string",
                 "description": "The push's apns-id, or the broadcast's apns-request-id."
                },
                "applied": {
                 "type": "boolean"
                },
                "outcome": {
                 "enum": [
                  "applied",
                  "waiting",
                  "coalesced",
                  "ignored"
                 ]
                },
                "until": {
                 "type": [
                  "string",
                  "null"
                 ],
                 "format": "date-time",
                 "description": "When a waiting update shows; null: never by itself (an hourly budget of 0)."
                },
                "coalescedInto": {
                 "type": "string"
                },
                "reason": {
                 "enum": [
                  "activityEnded",
                  "olderTimestamp",
                  "startToUpdateToken",
                  "notAStart",
                  "broadcastStart",
                  "unknownToken",
                  "unknownChannel",
                  "offlineNotStored",
                  "offlineExpired",
                  "receiverRestarted",
                  "appDeleted"
                 ]
                },
                "why": {
                 "type": "string"
                },
                "at": {
                 "type": "string",
                 "format": "date-time"
                }
               }
              }
             }
            }
           },
           "Broadcast": {
            "type": "object",
            "required": [
             "requestId",
             "uniqueId",
             "bundleId",
             "channel",
             "priority",
             "expiration",
             "receivedAt",
             "payload",
             "ignored"
            ],
            "properties": {
             "requestId": {
              "type": "string",
              "description": "Its apns-request-id: the apnsId of the activity updates it made."
             },
             "uniqueId": {
              "type": [
               "string",
               "null"
              ],
              "description": "The apns-unique-id answered (development only)."
             },
             "bundleId": {
              "type": "string"
             },
             "channel": {
              "type": "string",
              "description": "The apns-channel-id it was sent on."
             },
             "priority": {
              "enum": [
               1,
               5,
               10
              ]
             },
             "expiration": {
              "type": "integer",
              "description": "apns-expiration, seconds since the epoch; 0: nothing stored."
             },
             "receivedAt": {
              "type": "string",
              "format": "date-time"
             },
             "payload": {
              "type": [
               "string",
               "null"
              ],
              "description": "The payload as sent (null if not UTF-8)."
             },
             "ignored": {
              "type": [
               "string",
               "null"
              ],
              "description": "Why it reached no activity: ActivityKit cannot read its payload, or it is a start, which a channel cannot carry (Live Activity push ignored: <what>); null when each activity decided (its updates say how)."
             }
            }
           },
           "DeviceToken": {
            "description": "32 to 100 bytes in hex (either case; answers use lower case).",
            "type": "string",
            "pattern": "^([0-9a-fA-F]{2}){32,100}$"
           },
           "Fate": {
            "enum": [
             "pending",
             "delivered",
             "coalesced",
             "expired",
             "dropped",
             "rejected",
             "injected"
            ]
           },
           "Problem": {
            "description": "RFC 9457 problem details.",
            "type": "object",
            "required": [
             "type",
             "title",
             "status",
             "detail"
            ],
            "properties": {
             "type": {
              "type": "string"
             },
             "title": {
              "type": "string"
             },
             "status": {
              "type": "integer",
              "minimum": 400,
              "maximum": 599
             },
             "detail": {
              "type": "string",
              "minLength": 1
             },
             "error": {
              "type": "string",
              "description": "`detail` again, for clients written before problem details."
             }
            }
           },
           "Why": {
            "description": "The rule that decided, in words, and until when it holds.",
            "type": "object",
            "required": [
             "rule",
             "text",
             "until"
            ],
            "properties": {
             "rule": {
              "type": "string",
              "minLength": 1
             },
             "text": {
              "type": "string",
              "minLength": 1
             },
             "until": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             }
            }
           },
           "Push": {
            "type": "object",
            "required": [
             "apnsId",
             "apnsUniqueId",
             "deviceToken",
             "topic",
             "pushType",
             "priority",
             "receivedAt",
             "expiresAt",
             "collapseId",
             "fate",
             "why"
            ],
            "properties": {
             "apnsId": {
              "type": "string"
             },
             "apnsUniqueId": {
              "type": "string",
              "description": "The push's apns-unique-id (the development environment answers it with the push): this push alone, when a provider sent several with one apns-id; `GET /v1/pushes/{apnsId}` takes it too."
             },
             "deviceToken": {
              "type": [
               "string",
               "null"
              ]
             },
             "topic": {
              "type": [
               "string",
               "null"
              ]
             },
             "pushType": {
              "type": [
               "string",
               "null"
              ]
             },
             "priority": {
              "type": [
               "integer",
               "null"
              ]
             },
             "receivedAt": {
              "type": "string",
              "format": "date-time"
             },
             "expiresAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "collapseId": {
              "type": [
               "string",
               "null"
              ]
             },
             "fate": {
              "$ref": "#/components/schemas/Fate"
             },
             "wakeId": {
              "type": [
               "integer",
               "null"
              ],
              "description": "delivered, coalesced: the wake that delivered it."
             },
             "reason": {
              "type": [
               "string",
               "null"
              ],
              "description": "dropped, rejected, injected: why."
             },
             "cause": {
              "type": "string",
              "description": "rejected with InvalidProviderToken: why the token was refused, in the receiver's words (APNs answers only the reason)."
             },
             "faultRule": {
              "type": [
               "integer",
               "null"
              ],
              "description": "injected: the rule that answered it."
             },
             "why": {
              "$ref": "#/components/schemas/Why"
             },
             "warnings": {
              "type": "array",
              "items": {
               "type": "string"
              }
             },
             "headers": {
              "description": "One push (`GET /v1/pushes/{apnsID}`): the APNs headers as the receiver took them (not `authorization`): `apns-topic`, `apns-push-type` and `apns-priority` in force (defaults filled in; the last two absent for a refused push), `apns-expiration` as the second it expires.",
              "type": "object",
              "additionalProperties": {
               "type": "string"
              }
             },
             "payload": {
              "description": "One push: its payload, as text (null if it is not UTF-8).",
              "type": [
               "string",
               "null"
              ]
             }
            }
           },
           "Wake": {
            "type": "object",
            "required": [
             "id",
             "deviceToken",
             "topic",
             "kind",
             "apnsId",
             "apnsUniqueId",
             "coalesced",
             "coalescedUniqueIds",
             "startedAt",
             "deadline",
             "finishedAt",
             "durationMs",
             "result",
             "reason",
             "endedBy"
            ],
            "properties": {
             "id": {
              "type": "integer"
             },
             "deviceToken": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "topic": {
              "type": "string"
             },
             "kind": {
              "description": "What it ran: `fetch`, the app's fetch handler for a background push; `widgets` or `controls`, a reload of the app's widgets or controls by push, which runs no app code, starts and finishes at once (no result) and spends none of the device's background launches.",
              "enum": [
               "fetch",
               "widgets",
               "controls"
              ]
             },
             "apnsId": {
              "type": [
               "string",
               "null"
              ],
              "description": "The push delivered (null once retention pruned it while the wake stays)."
             },
             "apnsUniqueId": {
              "type": [
               "string",
               "null"
              ],
              "description": "The push delivered, by its apns-unique-id (null once retention pruned it)."
             },
             "coalesced": {
              "description": "The pushes it replaced in the app's slot, which rode this wake, by apns-id.",
              "type": "array",
              "items": {
               "type": "string"
              }
             },
             "coalescedUniqueIds": {
              "description": "The same pushes, in the same order, by apns-unique-id: each names one push (a provider may send several with one apns-id, as after a retry).",
              "type": "array",
              "items": {
               "type": "string"
              }
             },
             "startedAt": {
              "type": "string",
              "format": "date-time"
             },
             "deadline": {
              "type": "string",
              "format": "date-time"
             },
             "finishedAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "durationMs": {
              "type": [
               "integer",
               "null"
              ]
             },
             "result": {
              "enum": [
               "newData",
               "noData",
               "failed",
               null
              ]
             },
             "reason": {
              "type": [
               "string",
               "null"
              ]
             },
             "endedBy": {
              "enum": [
               "handler",
               "deadline",
               "shutdown",
               "restart",
               "killed",
               null
              ],
              "description": "Who ended it: the handler with its answer, the receiver (its deadline, its shutdown, its restart during the fetch), or the device killing the app (force-quit, restart, deletion: the reason says which), whatever words a handler's failure uses; null while it runs or for a reload."
             },
             "stderr": {
              "type": [
               "string",
               "null"
              ],
              "description": "What the fetch handler wrote to stderr (an exec handler's last 4 KB), whatever its result."
             }
            }
           },
           "Content": {
            "type": "object",
            "required": [
             "deviceToken",
             "topic",
             "url",
             "sha256",
             "size",
             "fetchedAt",
             "changedAt"
            ],
            "properties": {
             "deviceToken": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "topic": {
              "type": "string"
             },
             "url": {
              "type": "string",
              "description": "As fetched, with any user and password in it shown as ***; as given here it finds the body."
             },
             "etag": {
              "type": [
               "string",
               "null"
              ]
             },
             "lastModified": {
              "type": [
               "string",
               "null"
              ]
             },
             "contentType": {
              "type": [
               "string",
               "null"
              ]
             },
             "sha256": {
              "type": "string"
             },
             "size": {
              "type": "integer",
              "minimum": 0
             },
             "fetchedAt": {
              "type": "string",
              "format": "date-time"
             },
             "changedAt": {
              "type": "string",
              "format": "date-time"
             }
            }
           },
           "Counts": {
            "type": "object",
            "additionalProperties": {
             "type": "integer",
             "minimum": 0
            }
           },
           "Device": {
            "type": "object",
            "required": [
             "deviceToken",
             "forceQuit",
             "backgroundRefresh",
             "lowPowerMode",
             "dailyBudget",
             "batteryLevel",
             "charging",
             "thermalState",
             "debuggerAttached",
             "network",
             "networkType",
             "idle",
             "unregistered",
             "unregisteredAt"
            ],
            "properties": {
             "deviceToken": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "forceQuit": {
              "type": "boolean"
             },
             "backgroundRefresh": {
              "type": "boolean"
             },
             "lowPowerMode": {
              "type": "boolean"
             },
             "dailyBudget": {
              "type": [
               "integer",
               "null"
              ],
              "minimum": 0
             },
             "batteryLevel": {
              "type": "integer",
              "minimum": 0,
              "maximum": 100
             },
             "charging": {
              "type": "boolean"
             },
             "thermalState": {
              "enum": [
               "nominal",
               "fair",
               "serious",
               "critical"
              ]
             },
             "debuggerAttached": {
              "type": "boolean"
             },
             "network": {
              "enum": [
               "online",
               "offline"
              ]
             },
             "networkType": {
              "enum": [
               "wifi",
               "cellular"
              ]
             },
             "idle": {
              "type": "boolean"
             },
             "unregistered": {
              "type": "boolean"
             },
             "unregisteredAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             }
            }
           },
           "DevicePatch": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
             "forceQuit": {
              "type": "boolean"
             },
             "backgroundRefresh": {
              "type": "boolean"
             },
             "lowPowerMode": {
              "type": "boolean"
             },
             "dailyBudget": {
              "type": [
               "integer",
               "null"
              ],
              "minimum": 0,
              "maximum": 1000000
             },
             "batteryLevel": {
              "type": "integer",
              "minimum": 0,
              "maximum": 100
             },
             "charging": {
              "type": "boolean"
             },
             "thermalState": {
              "enum": [
               "nominal",
               "fair",
               "serious",
               "critical"
              ]
             },
             "debuggerAttached": {
              "type": "boolean"
             },
             "network": {
              "enum": [
               "online",
               "offline"
              ]
             },
             "networkType": {
              "enum": [
               "wifi",
               "cellular"
              ],
              "description": "Background transfers that may not use cellular data, and discretionary ones, wait for wifi."
             },
             "idle": {
              "type": "boolean"
             },
             "unregistered": {
              "type": "boolean"
             }
            }
           },
           "TaskSubmission": {
            "description": "A BGAppRefreshTaskRequest, BGProcessingTaskRequest or BGContinuedProcessingTaskRequest.\nOnly a processing task has `requiresNetworkConnectivity` and `requiresExternalPower`.\n",
            "oneOf": [
             {
              "type": "object",
              "required": [
               "identifier",
               "kind"
              ],
              "additionalProperties": false,
              "properties": {
               "identifier": {
                "$ref": "#/components/schemas/TaskIdentifier"
               },
               "kind": {
                "const": "processing"
               },
               "earliestBeginDate": {
                "type": [
                 "string",
                 "null"
                ],
                "format": "date-time"
               },
               "requiresNetworkConnectivity": {
                "type": "boolean"
               },
               "requiresExternalPower": {
                "type": "boolean"
               },
               "strategy": {
                "enum": [
                 "queue",
                 "fail"
                ]
               }
              }
             },
             {
              "type": "object",
              "required": [
               "identifier",
               "kind"
              ],
              "additionalProperties": false,
              "properties": {
               "identifier": {
                "$ref": "#/components/schemas/TaskIdentifier"
               },
               "kind": {
                "enum": [
                 "refresh",
                 "continued"
                ]
               },
               "earliestBeginDate": {
                "type": [
                 "string",
                 "null"
                ],
                "format": "date-time"
               },
               "strategy": {
                "enum": [
                 "queue",
                 "fail"
                ],
                "description": "continued tasks: wait for a slot, or fail at once."
               }
              }
             }
            ]
           },
           "TaskIdentifier": {
            "description": "Such as com.example.app.refresh (1 to 200 visible ASCII characters, no `/`).",
            "type": "string",
            "pattern": "^[!-.0-~]{1,200}$"
           },
           "TaskRequest": {
            "type": "object",
            "required": [
             "id",
             "deviceToken",
             "topic",
             "identifier",
             "kind",
             "earliestBeginDate",
             "requiresNetworkConnectivity",
             "requiresExternalPower",
             "strategy",
             "submittedAt",
             "state",
             "endedAt",
             "why"
            ],
            "properties": {
             "id": {
              "type": "integer"
             },
             "deviceToken": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "topic": {
              "type": "string"
             },
             "identifier": {
              "type": "string"
             },
             "kind": {
              "enum": [
               "refresh",
               "processing",
               "continued",
               "urlSession"
              ],
              "description": "urlSession: the system's relaunch for a background session's events (never submitted)."
             },
             "earliestBeginDate": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "requiresNetworkConnectivity": {
              "type": "boolean"
             },
             "requiresExternalPower": {
              "type": "boolean"
             },
             "strategy": {
              "enum": [
               "queue",
               "fail"
              ]
             },
             "submittedAt": {
              "type": "string",
              "format": "date-time"
             },
             "state": {
              "enum": [
               "pending",
               "launched",
               "cancelled",
               "replaced"
              ]
             },
             "endedAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "why": {
              "$ref": "#/components/schemas/Why"
             }
            }
           },
           "TaskRunRecord": {
            "description": "A run, or a request that never ran (outcome `cancelled` or `replaced`: no id, no start;\n`finishedAt` is when it left pending).\n",
            "type": "object",
            "required": [
             "id",
             "requestId",
             "deviceToken",
             "topic",
             "identifier",
             "kind",
             "startedAt",
             "deadline",
             "simulated",
             "expiredAt",
             "finishedAt",
             "outcome",
             "killedBy",
             "progress",
             "why"
            ],
            "properties": {
             "id": {
              "type": [
               "integer",
               "null"
              ],
              "description": "The run's id; null for a request that never ran."
             },
             "requestId": {
              "type": "integer"
             },
             "deviceToken": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "topic": {
              "type": "string"
             },
             "identifier": {
              "type": "string"
             },
             "kind": {
              "enum": [
               "refresh",
               "processing",
               "continued",
               "urlSession"
              ]
             },
             "startedAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "deadline": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "simulated": {
              "type": "boolean"
             },
             "expiredAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "finishedAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "outcome": {
              "enum": [
               "completed",
               "failed",
               "expired",
               "terminated",
               "interrupted",
               "killed",
               "cancelled",
               "replaced",
               null
              ]
             },
             "killedBy": {
              "enum": [
               "forceQuit",
               "reboot",
               "appDeleted",
               null
              ],
              "description": "What killed the app, when outcome is killed; null otherwise (and for a run an older version recorded killed)."
             },
             "progress": {
              "type": "object",
              "required": [
               "completed",
               "total"
              ],
              "properties": {
               "completed": {
                "type": "integer",
                "minimum": 0
               },
               "total": {
                "type": "integer",
                "minimum": 0
               }
              }
             },
             "why": {
              "$ref": "#/components/schemas/Why"
             }
            }
           },
           "Transfer": {
            "description": "A background URLSession transfer: handed over by a wake's or a task run's handler, run by\nthe device against its origin under its conditions, and the relaunch it leads to.\n",
            "type": "object",
            "required": [
             "id",
             "deviceToken",
             "topic",
             "session",
             "url",
             "method",
             "discretionary",
             "allowsCellular",
             "sessionSendsLaunchEvents",
             "fromFile",
             "wakeId",
             "taskRunId",
             "handedOverAt",
             "state",
             "attempts",
             "bytes",
             "status",
             "finishedAt",
             "lastError",
             "relaunchRequestId",
             "file",
             "why"
            ],
            "properties": {
             "id": {
              "type": "integer"
             },
             "deviceToken": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "topic": {
              "type": "string"
             },
             "session": {
              "type": "string"
             },
             "url": {
              "type": "string",
              "description": "As handed over, with any user and password in it shown as ***."
             },
             "method": {
              "enum": [
               "GET",
               "PUT",
               "POST"
              ]
             },
             "discretionary": {
              "type": "boolean"
             },
             "allowsCellular": {
              "type": "boolean"
             },
             "sessionSendsLaunchEvents": {
              "type": "boolean"
             },
             "fromFile": {
              "type": [
               "string",
               "null"
              ],
              "description": "An upload (PUT or POST): the file the app handed over, sent from the copy the device took then."
             },
             "wakeId": {
              "type": [
               "integer",
               "null"
              ]
             },
             "taskRunId": {
              "type": [
               "integer",
               "null"
              ]
             },
             "handedOverAt": {
              "type": "string",
              "format": "date-time"
             },
             "state": {
              "enum": [
               "waiting",
               "running",
               "done",
               "failed",
               "cancelled"
              ]
             },
             "attempts": {
              "type": "integer",
              "minimum": 0
             },
             "bytes": {
              "type": "integer",
              "minimum": 0,
              "description": "Bytes of the origin's answer kept so far (all of them once done)."
             },
             "status": {
              "type": [
               "integer",
               "null"
              ],
              "description": "done: the origin's HTTP status (any complete answer ends a transfer, as on iOS)."
             },
             "finishedAt": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "lastError": {
              "type": [
               "string",
               "null"
              ],
              "description": "Why the last try was cut off or stopped (it is retried, or resumed once its conditions hold again)."
             },
             "relaunchRequestId": {
              "type": [
               "integer",
               "null"
              ],
              "description": "The task request (kind urlSession) that relaunches the app for its session."
             },
             "file": {
              "enum": [
               "moved",
               "deleted",
               null
              ],
              "description": "What the relaunch's handler did with the file: moved it away, or left it (deleted)."
             },
             "why": {
              "$ref": "#/components/schemas/Why"
             }
            }
           },
           "FaultMatch": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
             "device": {
              "$ref": "#/components/schemas/DeviceToken"
             },
             "topic": {
              "type": "string",
              "minLength": 1
             },
             "team": {
              "type": "string",
              "minLength": 1
             },
             "keyId": {
              "type": "string",
              "minLength": 1
             }
            }
           },
           "FaultAction": {
            "oneOf": [
             {
              "type": "object",
              "description": "Answer with an Apple reason and its status (410 Unregistered carries a timestamp).",
              "required": [
               "reason"
              ],
              "additionalProperties": false,
              "properties": {
               "reason": {
                "$ref": "#/components/schemas/APNsReason"
               }
              }
             },
             {
              "type": "object",
              "description": "Send GOAWAY with the reason after this many more streams.",
              "required": [
               "goaway"
              ],
              "additionalProperties": false,
              "properties": {
               "goaway": {
                "$ref": "#/components/schemas/APNsReason"
               },
               "afterStreams": {
                "type": "integer",
                "minimum": 0,
                "maximum": 1000000
               }
              }
             },
             {
              "type": "object",
              "description": "Drop the connection without an answer.",
              "required": [
               "reset"
              ],
              "additionalProperties": false,
              "properties": {
               "reset": {
                "const": true
               }
              }
             },
             {
              "type": "object",
              "description": "Answer as usual, this many milliseconds late.",
              "required": [
               "delayMs"
              ],
              "additionalProperties": false,
              "properties": {
               "delayMs": {
                "type": "integer",
                "minimum": 0,
                "maximum": 60000
               }
              }
             }
            ]
           },
           "FaultRuleInput": {
            "type": "object",
            "required": [
             "action"
            ],
            "additionalProperties": false,
            "properties": {
             "match": {
              "$ref": "#/components/schemas/FaultMatch"
             },
             "fraction": {
              "type": "number",
              "exclusiveMinimum": 0,
              "maximum": 1
             },
             "count": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000000000
             },
             "from": {
              "type": "string",
              "format": "date-time"
             },
             "until": {
              "type": "string",
              "format": "date-time"
             },
             "action": {
              "$ref": "#/components/schemas/FaultAction"
             }
            }
           },
           "FaultRule": {
            "type": "object",
            "required": [
             "id",
             "match",
             "fraction",
             "count",
             "from",
             "until",
             "action",
             "applied"
            ],
            "properties": {
             "id": {
              "type": "integer"
             },
             "match": {
              "type": "object",
              "properties": {
               "device": {
                "type": [
                 "string",
                 "null"
                ]
               },
               "topic": {
                "type": [
                 "string",
                 "null"
                ]
               },
               "team": {
                "type": [
                 "string",
                 "null"
                ]
               },
               "keyId": {
                "type": [
                 "string",
                 "null"
                ]
               }
              }
             },
             "fraction": {
              "type": [
               "number",
               "null"
              ]
             },
             "count": {
              "type": [
               "integer",
               "null"
              ],
              "description": "Answers left; null for no limit."
             },
             "from": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "until": {
              "type": [
               "string",
               "null"
              ],
              "format": "date-time"
             },
             "action": {
              "$ref": "#/components/schemas/FaultAction"
             },
             "applied": {
              "type": "integer",
              "minimum": 0
             }
            }
           },
           "APNsReason": {
            "enum": [
             "BadCollapseId",
             "BadDeviceToken",
             "BadExpirationDate",
             "BadMessageId",
             "BadPriority",
             "BadTopic",
             "DeviceTokenNotForTopic",
             "DuplicateHeaders",
             "IdleTimeout",
             "InvalidPushType",
             "MissingDeviceToken",
             "MissingTopic",
             "PayloadEmpty",
             "TopicDisallowed",
             "BadRequestPayload",
             "BadCertificate",
             "BadCertificateEnvironment",
             "ExpiredProviderToken",
             "Forbidden",
             "InvalidProviderToken",
             "MissingProviderToken",
             "UnrelatedKeyIdInToken",
             "BadEnvironmentKeyIdInToken",
             "BadPath",
             "MethodNotAllowed",
             "ExpiredToken",
             "Unregistered",
             "PayloadTooLarge",
             "TooManyProviderTokenUpdates",
             "TooManyRequests",
             "InternalServerError",
             "ServiceUnavailable",
             "Shutdown"
            ]
           }
          }
         }
        }
        """#
}
