"""The review page's sign-in: the form, signing in with a token the server
accepts for ``/mcp`` or with the one-time link ``zpm ui`` prints, and
signing out."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from zpm_app.web.page_calls import PageCalls
from zpm_app.web.page_errors import error_status, said
from zpm_app.web.responses import cross_site_refusal
from zpm_domain.errors import ZpmError

log = logging.getLogger("zpm")


class SignInPages(PageCalls):
    """Signing in and out, for :class:`zpm_app.web.pages.Pages` (which
    provides the sessions, the check of a token and the rendering)."""

    async def login_form(self, request: Request) -> Response:
        """The form that asks for a token, or a one-time link (``once``) redeemed."""
        once = request.query_params.get("once")
        if once is not None:
            caller = self._redeem(once)
            if caller is None:
                return self._render(
                    "login.html",
                    {"problem": "This sign-in link was used already or has expired."},
                    status=403,
                )
            return self._signed_in(request, caller)
        try:
            signed_in = await self._session(request)
        except ZpmError as error:  # the tokens cannot be read now
            return self._render("login.html", {"problem": said(error)}, status=error_status(error))
        if self._open_to_all() or signed_in is not None:
            return RedirectResponse("/", status_code=303)
        return self._render("login.html", {})

    async def login(self, request: Request) -> Response:
        """A session for the caller of the token the form sent."""
        refused = cross_site_refusal(request)
        if refused is not None:
            return refused
        if self._open_to_all():
            return RedirectResponse("/", status_code=303)
        form = await request.form()
        token = form.get("token")
        try:
            caller = await self._accepted(token.strip()) if isinstance(token, str) else None
        except ZpmError as error:  # the tokens cannot be read now
            return self._render("login.html", {"problem": said(error)}, status=error_status(error))
        if caller is None:
            peer = request.client.host if request.client is not None else "an unknown address"
            log.warning("review page: a sign-in from %s was refused (token not accepted)", peer)
            problem = "This token is not accepted here (unknown, revoked or expired)."
            return self._render("login.html", {"problem": problem}, status=401)
        assert isinstance(token, str)
        return self._signed_in(request, caller, token=token.strip())

    async def logout(self, request: Request) -> Response:
        """The session ended (a confirmed form)."""
        session = await self._confirmed(request)
        if isinstance(session, Response):
            return session
        return self._signed_out(request)
