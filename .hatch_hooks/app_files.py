"""Build hook: the wheel carries the app (app.py, pages/ and its Streamlit settings) inside the package.

The app's source stays at the top level of the checkout, where `streamlit run app.py` finds pages/ beside it;
a wheel installed where no checkout is gets a copy in rskpca/_app/, which `rskpca app` runs
(rskpca.cli._app.find_app). An editable install gets none: it runs the checkout's own files, and a copy
in site-packages would only go stale.
"""

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: Source path in the checkout -> path in the wheel.
APP_FILES = {
    "app.py": "rskpca/_app/app.py",
    "pages": "rskpca/_app/pages",
    ".streamlit/config.toml": "rskpca/_app/.streamlit/config.toml",
}


class AppFilesHook(BuildHookInterface):
    PLUGIN_NAME = "app-files"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name == "wheel" and version == "standard":  # not "editable"
            build_data["force_include"].update(APP_FILES)
