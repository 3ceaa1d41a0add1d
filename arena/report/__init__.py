"""The HTML report of a league or a match (``mus report``, ``mus replay --html``): the
standings and charts, every match, and a hand-by-hand replay viewer; docs/report.md."""

from arena.report.render import REPORT_DIR, Report, ReportError, report_folder, report_log, write_report

__all__ = ["REPORT_DIR", "Report", "ReportError", "report_folder", "report_log", "write_report"]
