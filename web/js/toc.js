// The contents (nav#toc, written by the build from the page's headings: decodelab_tools/toc.py):
// open in the margin on a wide screen, a slim bar that opens on a narrower one, and the section
// the reader is in marked in both (aria-current), its title in the bar.
//
// The place is found with an IntersectionObserver on the headings, not by measuring them on each
// scroll: chapters far from the screen are not laid out (content-visibility), and measuring a
// heading in one would lay it out.
const WIDE = "(min-width: 1400px)";

export function mountToc() {
  const nav = document.getElementById("toc");
  if (!nav) return;
  const details = nav.querySelector("details");
  const now = nav.querySelector(".toc-now");
  const pairs = [...nav.querySelectorAll("a[href^='#']")]
    .map((a) => [a, document.getElementById(a.getAttribute("href").slice(1))]).filter(([, h]) => h);
  const links = pairs.map(([a]) => a), heads = pairs.map(([, h]) => h);

  const wide = window.matchMedia(WIDE);
  const fit = () => { if (details) details.open = wide.matches; };
  fit();
  wide.addEventListener("change", fit);
  // a jump from the bar closes it (on a narrow screen it would cover the text jumped to)
  nav.addEventListener("click", (e) => { if (e.target.closest("a") && !wide.matches && details) details.open = false; });

  let current = -1;
  const mark = (i) => {
    if (i === current) return;
    if (current >= 0) links[current].removeAttribute("aria-current");
    current = i;
    if (i < 0) { // above the first heading: the contents from their top
      if (now) now.textContent = "";
      if (wide.matches) nav.scrollTop = 0;
      return;
    }
    links[i].setAttribute("aria-current", "location");
    if (now) now.textContent = links[i].textContent;
    // in the margin the contents scroll by themselves: keep the place in sight (the nav is the
    // links' offset parent there: position fixed)
    if (wide.matches && links[i].offsetParent === nav) {
      const top = links[i].offsetTop, bottom = top + links[i].offsetHeight;
      if (top < nav.scrollTop || bottom > nav.scrollTop + nav.clientHeight) nav.scrollTop = top - nav.clientHeight / 3;
    }
  };
  // The reader is in the section of the last heading above the line a third of the way down the
  // screen. The observer's box is everything above that line (its top margin reaches far above the
  // page), so a heading crossing the line either way changes its state, even when one jump (a
  // scrollbar drag, End, a link) takes it from below the screen to above it: an observer of the
  // top third alone saw no change for such a heading, and the mark stayed on an earlier section.
  const passed = heads.map(() => false);
  const io = new IntersectionObserver((entries) => {
    for (const e of entries) passed[heads.indexOf(e.target)] = e.isIntersecting;
    mark(passed.lastIndexOf(true));
  }, { rootMargin: "10000000px 0px -66% 0px" });
  for (const h of heads) io.observe(h);
}
