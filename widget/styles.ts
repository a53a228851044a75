/** The element's own styles; a page themes it through the `--sw-*` custom properties. */
export const CSS = `
:host{display:block;font:16px/1.4 system-ui,sans-serif;color:var(--sw-text,#1d1d1f);max-width:28rem}
.sw{background:var(--sw-bg,#fff);border:1px solid #c8c8cc;border-radius:12px;padding:1rem}
#sw-title{margin:0 0 .5rem;font-size:1.3rem;min-width:0;overflow-wrap:anywhere}
.head{display:flex;align-items:center;gap:.75rem}
.logo{width:56px;height:56px;object-fit:contain;border-radius:8px;margin-bottom:.5rem}
.venue{margin-bottom:.75rem}
.about,.policy{white-space:pre-line;margin:0 0 .5rem}
address{font-style:normal;display:flex;flex-direction:column;gap:.15rem;margin-bottom:.5rem}
address a{min-height:24px;display:inline-flex;align-items:center;width:fit-content}
summary{cursor:pointer;font-weight:600;min-height:24px}
#sw-body>[tabindex]{margin:.25rem 0 .75rem;font-size:1.1rem}
#sw-body>[tabindex]:focus{outline:none}
button,select,input,textarea,.btn{font:inherit;min-height:44px;min-width:44px;box-sizing:border-box;border-radius:8px}
button,.btn{border:1px solid var(--sw-accent,#0a58a8);background:#fff;color:var(--sw-accent,#0a58a8);padding:0 .9rem;cursor:pointer}
.primary,.btn{background:var(--sw-accent,#0a58a8);color:#fff;display:inline-flex;align-items:center;text-decoration:none}
button:disabled{border-color:#d6d6d6;background:#f2f2f2;color:#8a8a8a;cursor:default}
:focus-visible{outline:3px solid #e07b00;outline-offset:2px}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}p.done{font-weight:600;color:#176b2c}label.consent{display:flex;gap:.5rem;align-items:center;font-weight:400}label.consent input{width:24px;min-width:24px;min-height:24px;margin:0}
select,input,textarea{width:100%;border:1px solid #767676;padding:.4rem .6rem;background:#fff;color:inherit}
.row{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:1rem}
.nav{display:flex;align-items:center;justify-content:space-between;margin-bottom:.5rem}
.cal{display:grid;grid-template-columns:repeat(7,1fr);gap:4px;text-align:center}
.cal span{font-size:.8rem;color:#595959}
.cal button{padding:0;min-width:0}.notes{margin:.6rem 0 0;padding-left:1.2rem;font-size:.9rem}
.cal .full{background:repeating-linear-gradient(135deg,#fff4e0 0 6px,#fde3b8 6px 12px);border-color:#a05a00;color:#6b3d00}
.period,.sub{font-size:1rem;margin:1rem 0 .4rem}
.slots{display:grid;grid-template-columns:repeat(auto-fill,minmax(6.5rem,1fr));gap:6px}.slots button{white-space:nowrap}.slots .left{display:block;font-size:.75em;font-weight:400}
[aria-pressed=true]{background:var(--sw-accent,#0a58a8);color:#fff}
a{color:var(--sw-accent,#0a58a8)}
.muted{color:#595959;font-size:.9rem}
.code{font-size:1.5rem;font-weight:700;letter-spacing:.08em}
.test-mode{background:#fff4e0;color:#6b3d00;border:1px solid #a05a00;border-radius:8px;padding:.5rem .75rem;margin:0 0 .75rem;font-weight:600}
.alert:not(:empty){background:#fdecea;color:#8a1c13;border-radius:8px;padding:.5rem .75rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
`;
