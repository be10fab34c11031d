// A hover card that follows the pointer. Content is built with DOM nodes (never innerHTML), so
// page text from the vault cannot inject markup.

export function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export class Tooltip {
  constructor() {
    this.node = el("div", "tooltip");
    this.node.hidden = true;
    document.body.append(this.node);
  }

  show(event, ...content) {
    this.node.replaceChildren(...content);
    this.node.hidden = false;
    this.move(event);
  }

  move(event) {
    const pad = 14;
    const { innerWidth: w, innerHeight: h } = window;
    const box = this.node.getBoundingClientRect();
    let left = event.clientX + pad;
    let top = event.clientY + pad;
    if (left + box.width > w - 8) left = Math.max(8, event.clientX - box.width - pad);
    if (top + box.height > h - 8) top = Math.max(8, event.clientY - box.height - pad);
    this.node.style.left = `${left}px`;
    this.node.style.top = `${top}px`;
  }

  hide() {
    this.node.hidden = true;
  }
}
