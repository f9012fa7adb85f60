// A seat's receipts (docs/howto/receipts.md): when the game is over this phone keeps a receipt
// of it (localStorage), signed with an Ed25519 key it made itself, and posts it to the server.
// The key is made the first time this phone opens a seat of a game still being played: a phone
// that first comes to a game already over, or that lost its key, keeps an unsigned receipt.
// Signing uses the vendored noble libraries (weReceiptLibs): a phone at a LAN address over plain
// HTTP has no crypto.subtle.
(() => {
  const libs = window.weReceiptLibs;
  const meta = JSON.parse(document.getElementById("we-replay").textContent).meta;
  const live = meta.live;
  if (!live || !live.seat || !live.receipt) return;
  const KEY_ITEM = "we-receipt-key";
  const RECEIPTS_ITEM = "we-receipts";
  const text = new TextEncoder();
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const unhex = (digits) => Uint8Array.from(digits.match(/../g), (pair) => parseInt(pair, 16));

  function storedKey() {
    try {
      const key = JSON.parse(localStorage.getItem(KEY_ITEM));
      if (key && /^[0-9a-f]{64}$/.test(key.secret) && /^[0-9a-f]{64}$/.test(key.public)) return key;
    } catch (error) { /* a damaged key is a lost key */ }
    return null;
  }

  function makeKey() {
    if (!libs) return null;
    const secret = libs.keygen().secretKey;
    const key = { secret: hex(secret), public: hex(libs.getPublicKey(secret)) };
    try {
      localStorage.setItem(KEY_ITEM, JSON.stringify(key));
    } catch (error) {
      return null; // a key this phone cannot keep would sign receipts nobody can check again
    }
    return key;
  }

  // What a player is shown of a key, as `we audit --receipt` names it: 12 hex digits of its SHA-256.
  const keyFingerprint = (publicKey) => hex(libs.sha256(unhex(publicKey))).slice(0, 12);

  function kept() {
    try {
      return JSON.parse(localStorage.getItem(RECEIPTS_ITEM)) || {};
    } catch (error) {
      return {};
    }
  }

  function keep(receipt) {
    const all = kept();
    all[receipt.game + "/" + receipt.player] = receipt;
    try {
      localStorage.setItem(RECEIPTS_ITEM, JSON.stringify(all));
    } catch (error) { /* full: the receipt is still shown, and saved as a file on request */ }
  }

  // The signed claim: the format's canonical JSON (keys sorted, compact), as eventstore.receipts makes it.
  function claim(r) {
    return JSON.stringify({ events: r.events, game: r.game, hash: r.hash, player: r.player, score: r.score, we_receipt: 1 });
  }

  let key = storedKey();
  let disagrees = "";
  let looks = 0; // how many looks at the server ended (a mark for the tests)
  let postedEvents = 0; // the count of the last receipt the server kept (a mark for the tests too)
  let looking = false;
  let again = false;

  async function look() {
    if (looking) { again = true; return; }
    looking = true;
    try {
      // The page says whether the game is over (data-complete): until it is there is no receipt
      // to ask for, and asking would only earn a 409 on every event.
      const complete = document.documentElement.dataset.complete;
      if (complete !== "true") {
        if (complete === "false" && !key) key = makeKey(); // a game in progress: this phone is a witness of it
        return;
      }
      const mine = Object.values(kept()).find((r) => r.game === meta.game && r.player === live.seat);
      const asked = live.receipt + (mine ? "?seen=" + mine.events : "");
      const response = await fetch(asked, { headers: { "Authorization": "Bearer " + live.key } });
      const answer = await response.json(); // read to its end, whatever the status: nothing left open
      if (response.status === 409) {
        if (!key) key = makeKey(); // a game in progress: this phone becomes a witness of it
        return;
      }
      if (response.status !== 200) return;
      const receipt = answer;
      const seenHash = receipt.seen_hash;
      delete receipt.seen_hash;
      if (mine && (mine.events > receipt.events || seenHash !== mine.hash)) {
        // The log served now is not one this phone saw end: its receipt stays as it was.
        disagrees = "The log served now is not the one this phone saw end (at event " + mine.events
          + "): your receipt of this game is kept as it was.";
        return;
      }
      if (mine && mine.signature && !(key && libs)) return; // a key lost since: keep the signed one
      if (key && libs) {
        receipt.key = key.public;
        receipt.signature = hex(libs.sign(text.encode(claim(receipt)), unhex(key.secret)));
      }
      keep(receipt);
      if (receipt.signature) {
        const posted = await fetch(live.receipt, {
          method: "POST",
          headers: { "Content-Type": "application/json", "Authorization": "Bearer " + live.key },
          body: JSON.stringify(receipt),
        });
        await posted.json();
        if (posted.status === 201) postedEvents = receipt.events;
      }
    } catch (error) {
      /* offline for a moment: the next event looks again */
    } finally {
      looking = false;
      looks += 1;
      draw();
      if (again) { again = false; look(); }
    }
  }

  function item(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === "text") node.textContent = value; else node.setAttribute(name, value);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function save(receipt) {
    const blob = new Blob([JSON.stringify(receipt, null, 2) + "\n"], { type: "application/json" });
    const link = item("a", { href: URL.createObjectURL(blob), download: receipt.game + "-" + receipt.player + ".receipt.json" });
    document.body.append(link);
    link.click();
    link.remove();
  }

  function qr(receipt, box) {
    if (box.childElementCount) { box.replaceChildren(); return; }
    const code = libs.qrcode(0, "L");
    code.addData(JSON.stringify(receipt));
    code.make();
    box.innerHTML = code.createSvgTag({ cellSize: 3, margin: 4 }); // made here from the receipt: no markup of anyone's
  }

  function draw() {
    let section = document.getElementById("my-games");
    if (!section) {
      section = item("section", { id: "my-games", "aria-labelledby": "my-games-heading" });
      (document.querySelector("main") || document.body).append(section);
    }
    const all = Object.values(kept()).sort((a, b) => (b.date || "").localeCompare(a.date || "") || a.game.localeCompare(b.game));
    const said = key && libs
      ? "This phone signs its receipts with its own key: " + keyFingerprint(key.public) + "."
      : "This phone has no key: its receipts are unsigned (a key is made when it joins a game still being played).";
    const list = item("ul", { id: "receipts" });
    for (const r of all) {
      const box = item("div", { class: "receipt-qr" });
      const saveButton = item("button", { type: "button", class: "receipt-save", text: "Save as file" });
      saveButton.addEventListener("click", () => save(r));
      const qrButton = item("button", { type: "button", class: "receipt-show-qr", text: "QR code" });
      qrButton.addEventListener("click", () => qr(r, box));
      const signed = r.signature ? "signed, key " + keyFingerprint(r.key) : "unsigned";
      const words = (r.title || r.game) + " · " + (r.date || "") + " · " + r.player + ": " + r.score
        + " · fingerprint " + r.fingerprint + " at event " + r.events + " · " + signed;
      list.append(item("li", { "data-game": r.game, "data-signed": r.signature ? "yes" : "no" }, [
        item("span", { text: words }), " ", saveButton, " ", qrButton, box]));
    }
    if (postedEvents) section.dataset.posted = String(postedEvents);
    section.dataset.looks = String(looks);
    section.replaceChildren(item("h2", { id: "my-games-heading", text: "My games" }),
      item("p", { id: "receipt-key", text: said }),
      ...(disagrees ? [item("p", { id: "receipt-disagrees", role: "alert", text: disagrees })] : []),
      all.length ? list : item("p", { text: "No receipts yet: one is kept here when a game ends." }));
  }

  draw();
  look();
  // The page marks each event it takes in (data-head): a tie-break, a note or an undo after the
  // end refreshes the receipt.
  new MutationObserver(() => look()).observe(document.documentElement, { attributes: true, attributeFilter: ["data-head", "data-complete"] });
})();
