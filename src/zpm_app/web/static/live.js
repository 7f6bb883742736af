// Keeps a page that shows a memory current: every two seconds it asks the
// server where the memory stands (the <main> element's data-live URL); when
// that differs from what the page was drawn from (data-changes), it fetches
// the page again and puts its new <main> in place of the old one.  When the
// server no longer knows the session (signed out elsewhere, its token revoked
// or expired, the server restarted), the browser goes to sign in.
"use strict";
(function () {
  const every = 2000;
  async function look() {
    const main = document.querySelector("main[data-live]");
    if (!main) return;
    try {
      const asked = await fetch(main.dataset.live, { credentials: "same-origin", cache: "no-store" });
      if (asked.status === 401) return window.location.assign("/login");
      if (!asked.ok) return;
      const now = (await asked.text()).trim();
      if (now === main.dataset.changes) return;
      const page = await fetch(window.location.href, { credentials: "same-origin", cache: "no-store" });
      if (page.redirected) return window.location.assign(page.url);
      if (!page.ok) return;
      const drawn = new DOMParser().parseFromString(await page.text(), "text/html");
      const fresh = drawn.querySelector("main");
      if (fresh) main.replaceWith(fresh);
    } catch (error) {
      // the server is away for a moment: look again later
    } finally {
      window.setTimeout(look, every);
    }
  }
  window.setTimeout(look, every);
})();
