// The receipts' libraries for the seat page of `we serve`, bundled into one script (an IIFE
// defining `weReceiptLibs`): Ed25519 and the SHA-2 it needs work without crypto.subtle, which
// a phone has only on HTTPS or localhost.
import * as ed from "@noble/ed25519";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import qrcode from "qrcode-generator";

ed.hashes.sha512 = sha512;
// A receipt is UTF-8 text; the generator's default keeps only the low byte of each character.
qrcode.stringToBytes = (text) => Array.from(new TextEncoder().encode(text));

export const keygen = ed.keygen;
export const getPublicKey = ed.getPublicKey;
export const sign = ed.sign;
export const verify = ed.verify;
export { sha256, qrcode };
