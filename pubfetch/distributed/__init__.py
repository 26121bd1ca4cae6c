"""Fetching on several machines: Celery workers take batches of IDs from a queue and write to one shared database.

- :mod:`.app`: the Celery application and its settings (late acknowledgement, redelivery of a killed worker's batch);
- :mod:`.tasks`: the one task, fetching a batch into the database, idempotent by the fetcher's can-fetch rules;
- :mod:`.submit`: splitting IDs into batches, sending them, following a job; :mod:`.worker`: ``pubfetch worker``.

Celery, its Redis transport and a PostgreSQL driver are the ``cluster`` extra: ``pip install "pubfetch[cluster]"``.
"""
