#!/usr/bin/env python3
"""Sends pushes to a SilentPush receiver with aioapns, an unmodified third-party APNs client
library from PyPI, pointed at the receiver's host and port and trusting the dev CA.

Prints one JSON line per push: {"token": ..., "success": bool, "status": "...", "reason": ...}.
Usage: aioapns_push.py --port P --ca CA.pem (--key P8 --key-id ID --team-id ID | --cert PEM)
                       --topic TOPIC [--push-type T] [--priority N] [--message JSON] TOKEN [TOKEN ...]
"""
import argparse
import asyncio
import json
import ssl

import aioapns
from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--key")
    parser.add_argument("--key-id")
    parser.add_argument("--team-id")
    parser.add_argument("--cert", help="PEM with the client certificate and its key")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--push-type", default="background")
    parser.add_argument("--priority", type=int, default=5)
    parser.add_argument("--message", help="the payload, as JSON (default: a silent push)")
    parser.add_argument("tokens", nargs="+")
    args = parser.parse_args()

    # The library targets Apple's hosts; point its sandbox protocol at the receiver.
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = args.host
    connection.APNsDevelopmentClientProtocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.ca)
    if args.cert:
        client = APNs(client_cert=args.cert, topic=args.topic, use_sandbox=True, ssl_context=context)
    else:
        with open(args.key) as key_file:
            key = key_file.read()
        client = APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.topic, use_sandbox=True, ssl_context=context)

    for token in args.tokens:
        request = NotificationRequest(
            device_token=token,
            message=json.loads(args.message) if args.message else {"aps": {"content-available": 1}, "source": "aioapns"},
            push_type=PushType(args.push_type),
            priority=args.priority,
        )
        result = await client.send_notification(request)
        print(json.dumps({"token": token, "success": result.is_successful, "status": str(result.status),
                          "reason": result.description, "apns_id": result.notification_id}), flush=True)


asyncio.run(main())
