"""The kpipe commands (cli, status, report, history, verify, gate, tune, plot) over git and the metrics. No stage depends on them, so editing them stales no evidence."""
