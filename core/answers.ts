/**
 * Answers to an event's custom questions, as the guest schema checks them and the guest
 * repository stores them: shared by server/ and db/, so it lives here.
 */

/** One validated answer: a choice (radio, drop_down, one row per checkbox tick) or a text. */
export interface AnswerInput {
  question_id: number;
  choice_id: number | null;
  text_answer: string | null;
}

/** What answer validation needs to know about a question. */
export interface QuestionForAnswers {
  id: number;
  type: string;
  objstatus: number;
  choiceIds: Set<number>;
}
