/** JSON, the default: the answer's items (in the paged envelope on paged endpoints). */
import type { AnswerFormat } from './format.js';

export const json: AnswerFormat<'json'> = {
  name: 'json',
  mediaType: 'application/json',
  contentType: 'application/json; charset=utf-8',
  extension: 'json',
  download: false,
  openApi: ({ answer, example }) => ({ schema: answer, example }),
};
