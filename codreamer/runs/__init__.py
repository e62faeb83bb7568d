"""Running a run (DESIGN §6, §10): `RunSpec` and the registries, the one `execute_run`
(CLI, local executor, celery workers), and the executors that decide where it runs,
chosen once in executors.py: local/ (run processes in this machine) and celery/
(workers anywhere, Redis as broker). Neither executor imports the other."""
