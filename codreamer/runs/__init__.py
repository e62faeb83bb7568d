"""Running a run: the one `execute_run` (CLI, local executor, celery workers), the
executors that decide where it runs, and the run store over `meta.json`."""
