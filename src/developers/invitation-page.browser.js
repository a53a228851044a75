// The script of the page behind an invitation link (/staff/accept?token=...), run in the browser.
// The password travels only in the body of a POST, never in a URL.
(() => {
  const form = document.getElementById('accept');
  if (!form) return;
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const password = document.getElementById('password');
  const repeat = document.getElementById('repeat');
  const problem = document.getElementById('problem');
  const button = form.querySelector('button');
  const min = Number(form.dataset.min);
  const max = Number(password.maxLength);

  /** Shows what the form led to in its place, its heading focused so screen readers read it. */
  const show = (id) => {
    document.getElementById('invitation').hidden = true;
    const section = document.getElementById(id);
    section.hidden = false;
    section.querySelector('h2').focus();
  };

  /** Says what is wrong next to the form and puts the focus on the field to change. */
  const refuse = (message, field) => {
    problem.textContent = message;
    for (const input of [password, repeat]) {
      if (input === field) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    }
    field.focus();
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    if (password.value.length < min) {
      refuse(`This password is too short: use at least ${min} characters.`, password);
      return;
    }
    if (repeat.value !== password.value) {
      refuse('The two passwords are not the same: type the same password twice.', repeat);
      return;
    }
    button.disabled = true;
    problem.textContent = '';
    let status = 0;
    try {
      const response = await fetch('/v1/auth/invitations/accept', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, password: password.value }),
        credentials: 'omit',
        cache: 'no-store',
      });
      status = response.status;
    } catch {
      // No answer (the network): said below like any other failure.
    }
    button.disabled = false;
    if (status === 200) show('done');
    else if (status === 401) show('gone');
    else if (status === 422) {
      refuse(`This password cannot be used: it needs ${min} to ${max} characters.`, password);
    } else refuse('Your password could not be set just now. Please try again in a moment.', password);
  });
})();
