# paasmon: one fresh correlation id per request (X-Correlation-Id), and one JSON line per request
# for `paasmon import --format locust` (Locust itself writes only aggregates). The listener and the
# `context=` are the fragment to copy; as is, a complete locustfile:
#   LOCUST_REQUESTS_JSONL=requests.jsonl locust -f locustfile.py --headless -u 8 -r 8 -t 30s -s 5 --host URL
# (-s lets requests in flight at the end finish, so they are reported.)
import json
import os
import uuid

from locust import HttpUser, constant, events, task

_out = open(os.environ.get("LOCUST_REQUESTS_JSONL", "requests.jsonl"), "a", buffering=1)


@events.request.add_listener
def _paasmon_line(request_type, name, response_time, response_length, response=None,
                  context=None, exception=None, start_time=None, url=None, **_):
    _out.write(json.dumps({
        "start_time": start_time, "response_time": response_time, "request_type": request_type,
        "name": name, "url": url, "status": getattr(response, "status_code", None) or 0,
        "response_length": response_length,
        "exception": None if exception is None else repr(exception),
        "correlation_id": (context or {}).get("correlation_id"),
    }) + "\n")


class PaasmonUser(HttpUser):
    wait_time = constant(0)

    @task
    def get(self):
        cid = str(uuid.uuid4())
        self.client.get(os.environ.get("TARGET_PATH", "/"), headers={"X-Correlation-Id": cid},
                        context={"correlation_id": cid})
