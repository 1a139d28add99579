"""Reading a Chromium trace into the main thread's busy time, the live charts' draws and the commits."""

from browser_trace import main_thread_share


def _meta(pid, tid, name):
    return {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}}


def _span(pid, tid, name, ts, dur, url=None):
    return {"ph": "X", "pid": pid, "tid": tid, "name": name, "ts": ts, "dur": dur,
            "args": {"data": {"url": url}} if url else {}}


def test_only_renderer_main_threads_count_and_overlapping_tasks_once():
    events = [_meta(1, 1, "CrRendererMain"), _meta(1, 2, "Compositor"), _meta(2, 5, "CrRendererMain"),
              _span(1, 1, "RunTask", 0, 10_000), _span(1, 1, "RunTask", 5_000, 10_000),  # overlap: 15 ms in all
              _span(1, 2, "RunTask", 0, 50_000),  # the compositor thread: not the main thread
              _span(2, 5, "ThreadControllerImpl::RunTask", 0, 4_000),  # a second renderer's main thread
              _span(1, 2, "Commit", 0, 9_000), _span(1, 1, "Commit", 1_000, 3_000)]
    share = main_thread_share(events)
    assert (share.busy_ms, share.commit_ms, share.charts_ms) == (19.0, 3.0, 0.0)


def test_chart_draws_are_the_message_handlers_that_run_the_chart_page():
    chart = "http://127.0.0.1:8501/component/rskpca.ui.live_chart.rskpca_live_chart/index.html?streamlitUrl=x"
    events = [_meta(1, 1, "CrRendererMain"),
              _span(1, 1, "RunTask", 0, 100_000),
              _span(1, 1, "HandlePostMessage", 0, 40_000), _span(1, 1, "FunctionCall", 100, 39_000, chart),
              _span(1, 1, "HandlePostMessage", 50_000, 5_000),  # the app's own handler of a chart's message
              _span(1, 1, "FunctionCall", 50_100, 4_000, "http://127.0.0.1:8501/static/js/index.js")]
    assert main_thread_share(events).charts_ms == 40.0
    assert main_thread_share([]).busy_ms == 0.0
