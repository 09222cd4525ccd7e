// Step through a chess game's positions: one board shown at a time, with buttons and arrow keys.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-stepper]").forEach((stepper) => {
    const frames = Array.from(stepper.querySelectorAll(".ply"));
    const label = stepper.querySelector("[data-position]");
    let at = 0;
    const show = (i) => {
      at = Math.max(0, Math.min(frames.length - 1, i));
      frames.forEach((f, j) => { f.hidden = j !== at; });
      label.textContent = `${at + 1} / ${frames.length}`;
    };
    stepper.querySelector("[data-first]").onclick = () => show(0);
    stepper.querySelector("[data-prev]").onclick = () => show(at - 1);
    stepper.querySelector("[data-next]").onclick = () => show(at + 1);
    stepper.querySelector("[data-last]").onclick = () => show(frames.length - 1);
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") show(at - 1);
      if (e.key === "ArrowRight") show(at + 1);
    });
    show(0);
  });
});
