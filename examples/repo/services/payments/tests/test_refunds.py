import pytest

from payments.refunds import Payment, RefundError, refund


def test_partial_refunds_add_up():
    payment = Payment("pay_1", 1000)
    assert refund(payment, 300) == 700
    assert refund(payment, 700) == 0


def test_refund_cannot_exceed_capture():
    payment = Payment("pay_2", 1000)
    refund(payment, 600)
    with pytest.raises(RefundError):
        refund(payment, 500)


def test_refund_must_be_positive():
    with pytest.raises(RefundError):
        refund(Payment("pay_3", 1000), 0)
