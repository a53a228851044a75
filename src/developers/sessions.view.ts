/** The wire shapes of signing in, shared by the developers' and the staff's routes. */
import { Type } from 'typebox';
import { example } from '../platform/schemas.ts';

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ format: 'int32' }),
  refresh_token: Type.String(),
});

export const LoginBody = example(
  Type.Object(
    {
      email: Type.String({ minLength: 1, maxLength: 254 }),
      password: Type.String({ minLength: 1, maxLength: 256 }),
    },
    { additionalProperties: false },
  ),
  { email: 'ada@example.com', password: 'correct horse battery staple' },
);
